import { describe, expect, it } from 'vitest';
import { compareMavenVersions } from '../../../src/core/versions/maven-version.js';
import { compareVersions, declaredAdmits, updateType } from '../../../src/core/versions/versions.js';

// Maven's own ordering examples (ComparableVersionTest in maven-artifact): each list is ascending.
const MAVEN_QUALIFIERS = [
  '1-alpha2snapshot',
  '1-alpha2',
  '1-alpha-123',
  '1-beta-2',
  '1-beta123',
  '1-m2',
  '1-m11',
  '1-rc',
  '1-cr2',
  '1-rc123',
  '1-SNAPSHOT',
  '1',
  '1-sp',
  '1-sp2',
  '1-sp123',
  '1-abc',
  '1-def',
  '1-pom-1',
  '1-1-snapshot',
  '1-1',
  '1-2',
  '1-123',
];
const MAVEN_NUMBERS = [
  '2.0',
  '2-1',
  '2.0.a',
  '2.0.0.a',
  '2.0.2',
  '2.0.123',
  '2.1.0',
  '2.1-a',
  '2.1b',
  '2.1-c',
  '2.1-1',
  '2.1.0.1',
  '2.2',
  '2.123',
  '11.a2',
  '11.a11',
  '11.b2',
  '11.b11',
  '11.m2',
  '11.m11',
  '11',
  '11.a',
  '11b',
  '11c',
  '11m',
];

describe("Maven's version order", () => {
  it.each([
    ['qualifiers', MAVEN_QUALIFIERS],
    ['numbers', MAVEN_NUMBERS],
  ])('orders the %s examples as Maven does', (_name, list) => {
    for (let i = 0; i < list.length - 1; i++) {
      expect({ a: list[i], b: list[i + 1], order: compareMavenVersions(list[i]!, list[i + 1]!) }).toEqual({ a: list[i], b: list[i + 1], order: -1 });
      expect(compareMavenVersions(list[i + 1]!, list[i]!)).toBe(1);
    }
  });

  it('treats trailing zeros and release qualifiers as nothing, and cr as rc', () => {
    expect(compareMavenVersions('1', '1.0.0')).toBe(0);
    expect(compareMavenVersions('1-ga', '1')).toBe(0);
    expect(compareMavenVersions('1.0-final', '1')).toBe(0);
    expect(compareMavenVersions('1-cr1', '1-rc1')).toBe(0);
    expect(compareMavenVersions('31.1-jre', '32.0.0-jre')).toBe(-1);
  });
});

describe('update types', () => {
  it.each([
    ['maven', '2.14.0', '2.13.1', 'downgrade'],
    ['maven', '5.10.2', '6.0.0', 'major'],
    ['maven', '3.1.0', '3.2.0', 'minor'],
    ['maven', '32.0.0-jre', '32.0.1-jre', 'patch'],
    ['semver', '16.5.0', '17.0.1', 'major'],
    ['semver', '0.3.1', '0.4.0', 'major'],
    ['semver', '4.17.20', '4.17.21', 'patch'],
    ['semver', '1.0.0-beta.1', '1.0.0', 'other'],
    ['go', 'v1.9.0', 'v1.10.0', 'minor'],
    ['go', 'v2.0.0+incompatible', 'v2.1.0+incompatible', 'minor'],
    ['pep440', '2.31.0', '2.32.3', 'minor'],
    ['pep440', '1.4', '1.4.post1', 'other'],
    ['pep440', '2.0rc1', '1.9', 'downgrade'],
    ['semver', '1.2.3', '1.2.3', 'same'],
  ] as const)('%s %s → %s is %s', (scheme, from, to, type) => {
    expect(updateType(scheme, from, to)).toBe(type);
  });

  it('says nothing of what it cannot read as a version', () => {
    expect(compareVersions('semver', 'latest', '1.0.0')).toBeUndefined();
    expect(compareVersions('pep440', 'not a version', '1.0')).toBeUndefined();
    expect(updateType('maven', '${jackson.version}', '2.17.0')).toBeUndefined();
    expect(compareVersions('maven', '1'.repeat(300), '1')).toBeUndefined();
  });
});

describe('a declared requirement admits a resolved version (Dependabot from)', () => {
  it.each([
    ['semver', '^16.0.0', '16.5.0', true],
    ['semver', '~16.0.0', '16.5.0', false],
    ['semver', '>=1.2 <2', '1.9.9', true],
    ['semver', '16.0.0', '16.5.0', false],
    ['pep440', '>=2.0,<3', '2.31.0', true],
    ['pep440', '~=1.4', '1.9', true],
    ['pep440', '==2.30.0', '2.31.0', false],
    ['maven', '32.0.0-jre', '32.0.0-jre', true],
    ['go', 'v1.2.0', 'v1.2.1', false],
  ] as const)('%s %s admits %s: %s', (scheme, declared, version, admits) => {
    expect(declaredAdmits(scheme, declared, version)).toBe(admits);
  });

  it("reads Cargo's bare requirement as a caret", () => {
    expect(declaredAdmits('semver', '1.2', '1.4.0', { bareIsCaret: true })).toBe(true);
    expect(declaredAdmits('semver', '1.2', '1.4.0')).toBe(false);
  });
});
