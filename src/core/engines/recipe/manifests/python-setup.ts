import type { BumpDependencyStep } from '../../../task/recipe-steps.js';
import { bumpRequirement } from '../bump-ecosystems.js';
import type { TextBump } from '../bump-gradle.js';

/**
 * setup.py: every single- or double-quoted string literal that is a requirement of the package
 * (`install_requires`, `extras_require`, or a module-level list they refer to). Only strings
 * that read as `name<op>version` can match, so other literals are never touched.
 */
export function bumpSetupPy(text: string, step: BumpDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  setupPyStrings(text, (content, base) => bumpRequirement(out, content, base, step));
  return out;
}

/** Every single- or double-quoted one-line string literal of setup.py (comments skipped), with the offset of its content. */
export function setupPyStrings(text: string, visit: (content: string, base: number) => void): void {
  const literal = /#[^\n]*|(['"])((?:(?!\1)[^\\\n])*)\1/g;
  for (let m = literal.exec(text); m; m = literal.exec(text)) {
    if (m[1] !== undefined) visit(m[2], m.index + 1);
  }
}

const REQUIREMENT_KEYS = new Set(['install_requires', 'setup_requires', 'tests_require']);

/**
 * setup.cfg: `install_requires =` (and `setup_requires`, `tests_require`) in `[options]`, and
 * every key of `[options.extras_require]`, on the key's line or its indented continuation lines.
 */
export function bumpSetupCfg(text: string, step: BumpDependencyStep): TextBump {
  const out: TextBump = { spans: [], notes: [] };
  setupCfgRequirements(text, (requirement, base) => bumpRequirement(out, requirement, base, step));
  return out;
}

/** The requirement values of setup.cfg (the keys above), one per line, with their offsets. */
export function setupCfgRequirements(text: string, visit: (requirement: string, base: number) => void): void {
  let section = '';
  let inValue = false;
  let offset = 0;
  for (const line of text.split('\n')) {
    const header = /^\[([^\]]+)\]/.exec(line);
    const key = /^([A-Za-z_][\w.-]*)\s*[=:]\s*/.exec(line);
    if (header) {
      section = header[1].trim();
      inValue = false;
    } else if (key) {
      inValue = section === 'options.extras_require' || (section === 'options' && REQUIREMENT_KEYS.has(key[1]));
      if (inValue) visit(line.slice(key[0].length), offset + key[0].length);
    } else if (inValue && /^\s+\S/.test(line) && !/^\s*[#;]/.test(line)) visit(line, offset);
    else if (line.trim() !== '' && !/^\s/.test(line)) inValue = false;
    offset += line.length + 1;
  }
}
