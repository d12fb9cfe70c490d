import { HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** An object's size from HeadObject, or undefined when it does not exist; any other failure is thrown. */
export function s3ObjectSize(client: Pick<S3Client, 'send'>, bucket: string): (key: string) => Promise<number | undefined> {
  return async (key) => {
    try {
      return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ContentLength;
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (err as Error).name === 'NotFound') return undefined;
      throw err;
    }
  };
}
