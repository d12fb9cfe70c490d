import { renderPolicyReference } from '../src/core/policy/render-policy-reference.js';

export const START = '<!-- policy-reference:start -->';
export const END = '<!-- policy-reference:end -->';

/** The README's policy section: the generated reference without its own title. */
export function readmePolicySection(): string {
  const body = renderPolicyReference().split('\n').slice(1).join('\n').trim();
  return `${START}\n${body}\n${END}`;
}

/** The README with its policy section replaced by the generated one. */
export function withPolicySection(readme: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error('README.md has no policy-reference markers');
  return readme.slice(0, start) + readmePolicySection() + readme.slice(end + END.length);
}
