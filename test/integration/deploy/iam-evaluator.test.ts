import { describe, expect, it } from 'vitest';
import { evaluate, substitute, wildcardMatch, type Statement } from '../../helpers/iam-policy.js';

/**
 * The evaluator the IAM tests and the harness rely on, against the AWS rules that decide
 * whether a forged key gets through: S3 ARN wildcards cross `/`, `?` is one character, an
 * explicit Deny wins, layers (identity ∩ session) must all allow, and missing tags match nothing.
 */
const B = 'arn:aws:s3:::bucket';

describe('IAM evaluator', () => {
  it('matches `*` across `/` and `?` as exactly one character, literally otherwise', () => {
    expect(wildcardMatch(`${B}/runs/*/request.json`, `${B}/runs/o/r/id/request.json`)).toBe(true);
    expect(wildcardMatch(`${B}/runs/*/request.json`, `${B}/runs/o/r/id/attempts/2/request.json`)).toBe(true);
    expect(wildcardMatch(`${B}/runs/*/attempts/*`, `${B}/runs/o/r/attempts/request.json`)).toBe(true);
    expect(wildcardMatch(`${B}/runs/?/x`, `${B}/runs/a/x`)).toBe(true);
    expect(wildcardMatch(`${B}/runs/?/x`, `${B}/runs/ab/x`)).toBe(false);
    expect(wildcardMatch(`${B}/runs/?/x`, `${B}/runs//x`)).toBe(false);
    expect(wildcardMatch(`${B}/a.json`, `${B}/aXjson`)).toBe(false);
    expect(wildcardMatch(`${B}/Runs/*`, `${B}/runs/x`)).toBe(false);
    expect(wildcardMatch('s3:get*', 's3:GetObject', true)).toBe(true);
  });

  it('lets an explicit Deny win and requires every layer to allow', () => {
    const allow: Statement = { Effect: 'Allow', Action: 's3:PutObject', Resource: `${B}/runs/*` };
    const deny: Statement = { Effect: 'Deny', Action: ['s3:PutObject'], Resource: `${B}/runs/*/request.json` };
    const narrow: Statement = { Effect: 'Allow', Action: 's3:*', Resource: `${B}/runs/o/r/x/*` };
    const put = (key: string) => ({ action: 's3:PutObject', resource: `${B}/${key}` });
    expect(evaluate([[allow]], put('runs/o/r/y/run.json'))).toBe('allow');
    expect(evaluate([[allow, deny]], put('runs/o/r/y/request.json'))).toBe('explicit-deny');
    expect(evaluate([[allow], [narrow]], put('runs/o/r/y/run.json'))).toBe('implicit-deny');
    expect(evaluate([[allow], [narrow, deny]], put('runs/o/r/x/request.json'))).toBe('explicit-deny');
    expect(evaluate([[allow], [narrow]], put('runs/o/r/x/run.json'))).toBe('allow');
    expect(evaluate([[allow]], { action: 's3:GetObject', resource: `${B}/runs/o/r/x/run.json` })).toBe('implicit-deny');
  });

  it('substitutes principal tags, and a missing tag matches nothing', () => {
    const s: Statement = { Effect: 'Allow', Action: 's3:GetObject', Resource: `${B}/runs/\${aws:PrincipalTag/owner}/*` };
    const get = { action: 's3:GetObject', resource: `${B}/runs/acme/x` };
    expect(evaluate([[s]], get, { owner: 'acme' })).toBe('allow');
    expect(evaluate([[s]], get, { owner: 'evil' })).toBe('implicit-deny');
    expect(evaluate([[s]], get, {})).toBe('implicit-deny');
    expect(substitute('a/${aws:PrincipalTag/k}', {})).toBeUndefined();
    expect(() => substitute('a/${aws:username}', {})).toThrow(/unsupported/);
  });

  it('applies StringLikeIfExists to s3:prefix and refuses operators it does not know', () => {
    const list: Statement = {
      Effect: 'Allow',
      Action: 's3:ListBucket',
      Resource: B,
      Condition: { StringLikeIfExists: { 's3:prefix': ['runs/o/r/x/attempts/*'] } },
    };
    expect(evaluate([[list]], { action: 's3:ListBucket', resource: B, context: { 's3:prefix': 'runs/o/r/x/attempts/' } })).toBe('allow');
    expect(evaluate([[list]], { action: 's3:ListBucket', resource: B, context: { 's3:prefix': 'runs/o/r/y/attempts/' } })).toBe('implicit-deny');
    expect(evaluate([[list]], { action: 's3:ListBucket', resource: B })).toBe('allow');
    const odd: Statement = { ...list, Condition: { ArnLike: { 'aws:SourceArn': 'x' } } };
    expect(() => evaluate([[odd]], { action: 's3:ListBucket', resource: B })).toThrow(/unsupported condition/);
  });

  it('reads Null as "the key is absent" and lets a resource policy Deny win over an identity Allow, never grant', () => {
    const allow: Statement = { Effect: 'Allow', Action: 's3:PutObject', Resource: `${B}/trail/*` };
    const createOnly: Statement = { Effect: 'Deny', Action: 's3:PutObject', Resource: `${B}/trail/*`, Condition: { Null: { 's3:if-none-match': 'true' } } };
    const insecure: Statement = { Effect: 'Deny', Action: 's3:PutObject', Resource: `${B}/*`, Condition: { Bool: { 'aws:SecureTransport': 'false' } } };
    const put = (context: Record<string, string>) => ({ action: 's3:PutObject', resource: `${B}/trail/o/r/x/1/ledger/000000.json`, context });
    const tls = { 'aws:SecureTransport': 'true' };
    expect(evaluate([[allow]], put(tls), {}, [createOnly, insecure])).toBe('explicit-deny');
    expect(evaluate([[allow]], put({ ...tls, 's3:if-none-match': '*' }), {}, [createOnly, insecure])).toBe('allow');
    expect(evaluate([[allow]], put({ 'aws:SecureTransport': 'false', 's3:if-none-match': '*' }), {}, [createOnly, insecure])).toBe('explicit-deny');
    expect(evaluate([[]], put({ ...tls, 's3:if-none-match': '*' }), {}, [{ ...allow }])).toBe('implicit-deny');
  });
});
