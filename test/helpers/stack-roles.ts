import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse, YAMLSeq, type CollectionTag, type ScalarTag } from 'yaml';
import type { Statement } from './iam-policy.js';

/**
 * The statements of one role in infra/roles.yml, with the stack's substitutions made for a
 * given bucket, so in-process tests enforce the role the stack deploys (not a copy of it).
 * `${!x}` (CloudFormation's escape) becomes `${x}`, as Fn::Sub renders it.
 */
export function roleStatements(role: string, options: { bucket: string; prefix?: string; region?: string; account?: string }): Statement[] {
  const prefix = options.prefix ?? 'draftsman-test';
  const region = options.region ?? 'us-east-1';
  const account = options.account ?? '123456789012';
  const sub = (text: string) =>
    text
      .replaceAll('${AWS::Partition}', 'aws')
      .replaceAll('${AWS::Region}', region)
      .replaceAll('${AWS::AccountId}', account)
      .replaceAll('${self:custom.prefix}', prefix)
      .replaceAll(`arn:aws:s3:::${prefix}-artifacts-${account}-${region}`, `arn:aws:s3:::${options.bucket}`)
      .replace(/\$\{!/g, '${');
  const tag = (name: string, resolve: (value: string) => unknown): ScalarTag => ({ tag: name, resolve });
  // A statement under `!If` exists only with its condition (the Bedrock grant); here it does not.
  const condition: CollectionTag = { tag: '!If', collection: 'seq', nodeClass: YAMLSeq, resolve: () => ({ 'Fn::If': 'left out' }) };
  const customTags = [tag('!Sub', sub), tag('!GetAtt', (v) => `GETATT:${v}`), tag('!Ref', (v) => `REF:${v}`), condition];
  const text = readFileSync(fileURLToPath(new URL('../../infra/roles.yml', import.meta.url)), 'utf8');
  const doc = parse(text, { customTags }) as { Resources: Record<string, { Properties: { Policies: { PolicyDocument: { Statement: Statement[] } }[] } }> };
  const found = doc.Resources[role];
  if (!found) throw new Error(`infra/roles.yml has no ${role}`);
  return found.Properties.Policies.flatMap((p) => p.PolicyDocument.Statement).filter((statement) => 'Effect' in statement);
}
