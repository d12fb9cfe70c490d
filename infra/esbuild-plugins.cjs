// esbuild plugins for serverless-esbuild (custom.esbuild.plugins points here).
//
// The tree-sitter runtime, the grammars and the formatters (gofmt, ruff) are .wasm files that esbuild does not bundle, and they
// live in packages (src/app/local/wasm-files.json says which file serves what). The worker
// reads them from ONE directory named by DRAFTSMAN_WASM_DIR (src/app/local/node-grammar-loader.ts),
// so after the worker's bundle is built this copies them into `<build dir>/__only_worker/wasm/`:
// serverless-esbuild puts files under `__only_<function>/` into that function's zip only, with
// the prefix stripped, so they land at `/var/task/wasm/` in the worker and nowhere else.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const WASM_FILES = require('../src/app/local/wasm-files.json');
/** The grammars the syntax service loads: the `tree-sitter-<name>.wasm` files wasm-files.json names (a test checks them against GRAMMAR_FOR_LANGUAGE); the rest are the runtime and the formatters. */
const GRAMMARS = Object.keys(WASM_FILES).filter((name) => path.basename(WASM_FILES[name]) === `tree-sitter-${name}.wasm`);
const WASM_FUNCTIONS = { 'src/handlers/worker.ts': 'worker' };

function wasmSources(serviceDir) {
  const modules = path.join(serviceDir, 'node_modules');
  return Object.values(WASM_FILES).map((file) => path.join(modules, file));
}

function wasmAssets(serviceDir) {
  return {
    name: 'draftsman-wasm-assets',
    setup(build) {
      const entries = build.initialOptions.entryPoints ?? [];
      // serverless-esbuild builds one entry per function; a build of several entries (the bundle
      // test builds all handlers at once) gets the files of every function among them.
      const aliases = (Array.isArray(entries) ? entries : Object.values(entries))
        .map((entry) =>
          path
            .relative(serviceDir, path.resolve(serviceDir, String(entry)))
            .split(path.sep)
            .join('/'),
        )
        .filter((relative) => WASM_FUNCTIONS[relative])
        .map((relative) => ({ relative, functionAlias: WASM_FUNCTIONS[relative] }));
      if (aliases.length === 0) return;
      build.onEnd((result) => {
        if (result.errors.length > 0) return;
        for (const { relative, functionAlias } of aliases) {
          // serverless-esbuild sets outdir = <build dir>/<dirname(entry)>.
          const outdir = build.initialOptions.outdir;
          const buildDir = path.resolve(outdir, path.relative(path.dirname(relative), '.'));
          const target = path.join(buildDir, `__only_${functionAlias}`, 'wasm');
          fs.mkdirSync(target, { recursive: true });
          for (const source of wasmSources(serviceDir)) fs.copyFileSync(source, path.join(target, path.basename(source)));
        }
      });
    },
  };
}

module.exports = (serverless) => [wasmAssets(serverless.serviceDir ?? serverless.config.servicePath ?? process.cwd())];
module.exports.GRAMMARS = GRAMMARS;
