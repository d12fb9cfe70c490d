import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../../src/core/manifests/parse-manifest.js';

/** A crate in the shape of tokio's members: target tables, a renamed dependency, a dependency's own table, a workspace. */
const CARGO = `[package]
name = "tokio-util"
version = "0.7.11"

[dependencies]
tokio = { version = "1.28.0", path = "../tokio", features = ["sync"] }
bytes = "1.0.0"
futures-core = { version = "0.3.0" }
slab = { workspace = true }

[dependencies.tracing]
version = "0.1.25"
default-features = false

[dev-dependencies]
tokio-test = { version = "0.4.0", path = "../tokio-test" }

[target.'cfg(tokio_unstable)'.dependencies]
hashbrown = { version = "0.14.0", optional = true }

[target.'cfg(windows)'.dev-dependencies.windows-sys]
version = "0.52"
features = ["Win32_Foundation"]

[target.'cfg(loom)'.dev-dependencies]
loom = { version = "0.7", features = ["futures", "checkpoint"] }

[workspace.dependencies]
slab = "0.4.4"
`;

const row = (d: { name: string; version?: string; scope?: string; kind: string; line?: number; versionAt?: { path: string; line: number } }) =>
  `${d.name}|${d.version ?? ''}|${d.scope}|${d.kind}|${d.line ?? ''}|${d.versionAt ? `${d.versionAt.path}:${d.versionAt.line}` : ''}`;

describe('Cargo.toml: every dependency table, with lines', () => {
  it('reads [dependencies], a dependency table, [dev-dependencies], target tables and [workspace.dependencies]', () => {
    const parsed = parseManifest('cargo', CARGO, 'tokio-util/Cargo.toml');
    expect(parsed.parseError).toBeUndefined();
    expect(parsed.dependencies.map(row)).toEqual([
      'tokio|1.28.0|dependencies|path|6|tokio-util/Cargo.toml:6',
      'bytes|1.0.0|dependencies|dependency|7|tokio-util/Cargo.toml:7',
      'futures-core|0.3.0|dependencies|dependency|8|tokio-util/Cargo.toml:8',
      'slab||dependencies|workspace|9|',
      'tracing|0.1.25|dependencies|dependency|11|tokio-util/Cargo.toml:12',
      'tokio-test|0.4.0|dev-dependencies|path|16|tokio-util/Cargo.toml:16',
      'hashbrown|0.14.0|target.cfg(tokio_unstable).dependencies|dependency|19|tokio-util/Cargo.toml:19',
      'windows-sys|0.52|target.cfg(windows).dev-dependencies|dependency|21|tokio-util/Cargo.toml:22',
      'loom|0.7|target.cfg(loom).dev-dependencies|dependency|26|tokio-util/Cargo.toml:26',
      'slab|0.4.4|workspace.dependencies|dependency|29|tokio-util/Cargo.toml:29',
    ]);
  });

  it('a file that is not TOML is a parse error with its line', () => {
    expect(parseManifest('cargo', '[package]\nname = "x"\n[dependencies\nserde = "1"\n', 'Cargo.toml').parseError).toMatch(/^line 3: /);
  });
});
