import type { S3EventRecord } from 'aws-lambda';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, type ScalarTag } from 'yaml';
import { decodeS3EventKey } from '../../../src/app/aws/s3-artifact-store.js';

/**
 * Where the bucket sends an ObjectCreated event, read from infra/bucket.yml (not restated):
 * its S3 notification rules (prefix + suffix -> function, the S3 record as it is) and its
 * EventBridge rules (key wildcard -> function, the EventBridge "Object Created" event rendered
 * through the rule's input transformer, as EventBridge renders it).
 */

export interface Delivery {
  /** serverless.yml function key (`publisher`). */
  fn: string;
  via: 's3' | 'eventbridge';
  event: unknown;
}

type Tagged = { tag: string; value: unknown };
interface BucketYml {
  Resources: Record<string, { Type: string; Properties: Record<string, any> }>;
}

const fnOfArn = (arn: unknown): string => {
  // `!GetAtt PublisherLambdaFunction.Arn` -> `publisher`
  const ref = String((arn as Tagged).value ?? arn)
    .split('.')[0]
    .replace(/LambdaFunction$/, '');
  return ref.charAt(0).toLowerCase() + ref.slice(1);
};

function readBucketYml(): BucketYml {
  const keep = (tag: string): ScalarTag => ({ tag, resolve: (value: string) => ({ tag, value }) as unknown as string });
  const text = readFileSync(fileURLToPath(new URL('../../../infra/bucket.yml', import.meta.url)), 'utf8');
  return parse(text, { customTags: ['!Sub', '!Ref', '!GetAtt'].map(keep) }) as BucketYml;
}

/** EventBridge's `wildcard` filter: `*` matches any run of characters, `/` included. */
const wildcard = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

/** A JSONPath of the simple form `$.a.b-c` over an object. */
const at = (event: unknown, path: string): unknown =>
  path
    .replace(/^\$\./, '')
    .split('.')
    .reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], event);

export function bucketRouting(): (record: S3EventRecord) => Delivery[] {
  const yml = readBucketYml();
  const bucket = Object.values(yml.Resources).find((r) => r.Type === 'AWS::S3::Bucket' && r.Properties.NotificationConfiguration);
  if (!bucket) throw new Error('infra/bucket.yml has no bucket with notifications');
  const notifications = (bucket.Properties.NotificationConfiguration.LambdaConfigurations as any[]).map((c) => {
    const rules = Object.fromEntries((c.Filter.S3Key.Rules as { Name: string; Value: string }[]).map((r) => [r.Name, r.Value]));
    return { fn: fnOfArn(c.Function), prefix: rules.prefix ?? '', suffix: rules.suffix ?? '' };
  });
  const eventBridge = bucket.Properties.NotificationConfiguration.EventBridgeConfiguration?.EventBridgeEnabled === true;
  const rules = Object.values(yml.Resources)
    .filter((r) => r.Type === 'AWS::Events::Rule')
    .flatMap((r) => {
      const keys = r.Properties.EventPattern.detail.object.key as { wildcard: string }[];
      return (r.Properties.Targets as any[]).map((t) => ({
        fn: fnOfArn(t.Arn),
        keys: keys.map((k) => wildcard(k.wildcard)),
        transformer: t.InputTransformer as { InputPathsMap: Record<string, string>; InputTemplate: string },
      }));
    });

  return (record) => {
    if (!record.eventName.startsWith('ObjectCreated')) return [];
    const key = decodeS3EventKey(record.s3.object.key);
    const out: Delivery[] = notifications
      .filter((n) => key.startsWith(n.prefix) && key.endsWith(n.suffix))
      .map((n) => ({ fn: n.fn, via: 's3', event: { Records: [record] } }));
    if (!eventBridge) return out;
    for (const rule of rules.filter((r) => r.keys.some((k) => k.test(key)))) {
      // The event S3 sends to EventBridge for the same write (its key is not URL-encoded).
      const detail = {
        version: '0',
        bucket: { name: record.s3.bucket.name },
        object: { key, size: record.s3.object.size, etag: record.s3.object.eTag, sequencer: record.s3.object.sequencer },
        'request-id': record.responseElements['x-amz-request-id'],
        requester: '123456789012',
        'source-ip-address': record.requestParameters.sourceIPAddress,
        reason: 'PutObject',
      };
      const ebEvent = {
        version: '0',
        id: `eb-${record.s3.object.sequencer}`,
        'detail-type': 'Object Created',
        source: 'aws.s3',
        account: '123456789012',
        time: record.eventTime,
        region: record.awsRegion,
        resources: [`arn:aws:s3:::${record.s3.bucket.name}`],
        detail,
      };
      // EventBridge puts each variable's JSON value where `<name>` stands (strings quoted).
      const rendered = rule.transformer.InputTemplate.replace(/<([A-Za-z0-9_-]+)>/g, (_, name: string) => {
        const path = rule.transformer.InputPathsMap[name];
        if (!path) throw new Error(`input template names <${name}>, which InputPathsMap does not define`);
        return JSON.stringify(at(ebEvent, path) ?? null);
      });
      out.push({ fn: rule.fn, via: 'eventbridge', event: JSON.parse(rendered) });
    }
    return out;
  };
}
