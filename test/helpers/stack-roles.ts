import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, YAMLSeq, type CollectionTag, type ScalarTag } from 'yaml';
import type { Statement } from './iam-policy.js';

/** Stands for the bucket's ARN in the parsed file, so one parse serves every bucket. */
const BUCKET = '@@bucket@@';

type RolesDocument = { Resources: Record<string, { Properties: { Policies: { PolicyDocument: { Statement: Statement[] } }[] } }> };

/** infra/roles.yml parsed once per prefix, region and account (a harness asks for five roles, and every test starts one). */
const parsed = new Map<string, RolesDocument>();

function rolesDocument(prefix: string, region: string, account: string): RolesDocument {
  const key = `${prefix}\n${region}\n${account}`;
  const known = parsed.get(key);
  if (known) return known;
  const sub = (text: string) =>
    text
      .replaceAll('${AWS::Partition}', 'aws')
      .replaceAll('${AWS::Region}', region)
      .replaceAll('${AWS::AccountId}', account)
      .replaceAll('${self:custom.prefix}', prefix)
      .replaceAll(`arn:aws:s3:::${prefix}-artifacts-${account}-${region}`, `arn:aws:s3:::${BUCKET}`)
      .replace(/\$\{!/g, '${');
  const tag = (name: string, resolve: (value: string) => unknown): ScalarTag => ({ tag: name, resolve });
  // A statement under `!If` exists only with its condition (the Bedrock grant); here it does not.
  const condition: CollectionTag = { tag: '!If', collection: 'seq', nodeClass: YAMLSeq, resolve: () => ({ 'Fn::If': 'left out' }) };
  const customTags = [tag('!Sub', sub), tag('!GetAtt', (v) => `GETATT:${v}`), tag('!Ref', (v) => `REF:${v}`), condition];
  const text = readFileSync(fileURLToPath(new URL('../../infra/roles.yml', import.meta.url)), 'utf8');
  const doc = parse(text, { customTags }) as RolesDocument;
  parsed.set(key, doc);
  return doc;
}

/**
 * The statements of one role in infra/roles.yml, with the stack's substitutions made for a
 * given bucket, so in-process tests enforce the role the stack deploys (not a copy of it).
 * `${!x}` (CloudFormation's escape) becomes `${x}`, as Fn::Sub renders it. Each call returns
 * its own copy.
 */
export function roleStatements(role: string, options: { bucket: string; prefix?: string; region?: string; account?: string }): Statement[] {
  const doc = rolesDocument(options.prefix ?? 'draftsman-test', options.region ?? 'us-east-1', options.account ?? '123456789012');
  const found = doc.Resources[role];
  if (!found) throw new Error(`infra/roles.yml has no ${role}`);
  const statements = found.Properties.Policies.flatMap((p) => p.PolicyDocument.Statement).filter((statement) => 'Effect' in statement);
  return JSON.parse(JSON.stringify(statements).replaceAll(BUCKET, options.bucket)) as Statement[];
}

/**
 * The bucket policy of infra/bucket.yml (its statements, `Principal` dropped: each names `*`), for
 * a given bucket: the harness's S3 stand-in and the worker's store enforce it as S3 would.
 */
export function bucketPolicyStatements(bucket: string, partition = 'aws'): Statement[] {
  const sub = (text: string) => text.replaceAll('${AWS::Partition}', partition).replaceAll('${ArtifactBucket}', bucket);
  const tag = (name: string, resolve: (value: string) => unknown): ScalarTag => ({ tag: name, resolve });
  const customTags = [tag('!Sub', sub), tag('!GetAtt', (v) => `GETATT:${v}`), tag('!Ref', (v) => (v === 'ArtifactBucket' ? bucket : `REF:${v}`))];
  const text = readFileSync(fileURLToPath(new URL('../../infra/bucket.yml', import.meta.url)), 'utf8');
  type BucketDocument = { Resources: { ArtifactBucketPolicy: { Properties: { PolicyDocument: { Statement: (Statement & { Principal?: unknown })[] } } } } };
  const doc = parse(text, { customTags }) as BucketDocument;
  return doc.Resources.ArtifactBucketPolicy.Properties.PolicyDocument.Statement.map(({ Principal: _principal, ...statement }) => statement);
}
