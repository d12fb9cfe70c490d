// The `aws` command of the stand-in's build image: only `aws s3 cp <from> <to>`, with the
// credentials and endpoint the build's environment gives, as the real CLI would use them.
import { readFile, writeFile } from 'node:fs/promises';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';

const [service, verb, from, to] = process.argv.slice(2);
if (service !== 's3' || verb !== 'cp' || !from || !to) {
  process.stderr.write(`aws stand-in: unsupported command ${process.argv.slice(2).join(' ')}\n`);
  process.exit(2);
}
const client = new S3Client({ region: 'us-east-1', endpoint: process.env.AWS_ENDPOINT_URL_S3, forcePathStyle: true, maxAttempts: 1 });
const parse = (url) => {
  const m = /^s3:\/\/([^/]+)\/(.+)$/.exec(url);
  return m ? { Bucket: m[1], Key: m[2] } : undefined;
};
try {
  if (parse(from)) {
    const out = await client.send(new GetObjectCommand(parse(from)));
    await writeFile(to, await out.Body.transformToByteArray());
  } else if (parse(to)) {
    await client.send(new PutObjectCommand({ ...parse(to), Body: await readFile(from) }));
  } else throw new Error('one side must be s3://');
} catch (error) {
  process.stderr.write(`upload failed: ${error.name ?? ''} ${error.message}\n`);
  process.exit(1);
}
