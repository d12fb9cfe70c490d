import { BUILD_HEAD_BYTES, BUILD_TAIL_BYTES, type VerifyBuildRequest } from './verify-build.js';

/**
 * The buildspec (version 0.2) of a verification build (docs/architecture.md, "Verification").
 * install fetches the candidate archive with the build's run-scoped session and unpacks it;
 * build runs each project command through a small runner that enforces the command's time and
 * output limits, the budget and the setup rule, and appends one line per command; post_build
 * writes those lines as `build/result.json` under the run's `verify/<digest>/`. A build that
 * fails before post_build writes nothing, which the verifier reports as such. JSON is YAML, so
 * the buildspec is written as JSON.
 */

const DV = '"${TMPDIR:-/tmp}/draftsman-verify"';

/** Runner for one command: `run.sh <index> <kind> <cwd base64> <command base64>`. Bash: `pipefail` and `PIPESTATUS`. */
const RUNNER = `#!/bin/bash
set -u
i="$1"; kind="$2"
cwd="$(printf %s "$3" | base64 -d)"; cmd="$(printf %s "$4" | base64 -d)"
O=${DV}
line() { printf '%s\\n' "$1" >> "$O/lines"; }
if [ -e "$O/setup-failed" ]; then line "{\\"index\\":$i,\\"skipped\\":\\"setup\\"}"; exit 0; fi
start=$(date +%s%3N)
left=$(( ($(cat "$O/end") - start) / 1000 ))
if [ "$left" -le 0 ]; then line "{\\"index\\":$i,\\"skipped\\":\\"budget\\"}"; exit 0; fi
t=$DV_TIMEOUT; if [ "$left" -lt "$t" ]; then t=$left; fi
( cd "$CODEBUILD_SRC_DIR/$cwd" || exit 1
  if [ -n "\${DV_MEMORY_KB:-}" ]; then ulimit -v "$DV_MEMORY_KB"; fi
  exec timeout -k 5 "$t" bash -c "$cmd" ) </dev/null 2>&1 | head -c $((DV_MAX_OUTPUT + 1)) > "$O/$i.out"
code=\${PIPESTATUS[0]}
ms=$(( $(date +%s%3N) - start ))
bytes=$(wc -c < "$O/$i.out")
limited=false; if [ "$bytes" -gt "$DV_MAX_OUTPUT" ]; then limited=true; fi
# timeout exits 124 (137 once -k kills); a command that exits so itself before its time did not time out.
timed=false; if { [ "$code" -eq 124 ] || [ "$code" -eq 137 ]; } && [ "$ms" -ge $(( t * 1000 )) ]; then timed=true; fi
exit_json=$code; if [ "$timed" = true ] || [ "$limited" = true ]; then exit_json=null; fi
headb=$(head -c ${BUILD_HEAD_BYTES} "$O/$i.out" | base64 -w0)
rest=$(( bytes - ${BUILD_HEAD_BYTES} )); if [ "$rest" -gt ${BUILD_TAIL_BYTES} ]; then rest=${BUILD_TAIL_BYTES}; fi
tailb=""; if [ "$rest" -gt 0 ]; then tailb=$(tail -c "$rest" "$O/$i.out" | base64 -w0); fi
line "{\\"index\\":$i,\\"exitCode\\":$exit_json,\\"durationMs\\":$ms,\\"timedOut\\":$timed,\\"outputLimited\\":$limited,\\"outputBytes\\":$bytes,\\"head\\":\\"$headb\\",\\"tail\\":\\"$tailb\\"}"
if [ "$kind" = setup ] && [ "$exit_json" != 0 ]; then touch "$O/setup-failed"; fi
exit 0
`;

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** Where the build reads and writes: the bucket, the candidate archive, the build's result key. */
export interface BuildLocations {
  bucket: string;
  sourceKey: string;
  resultKey: string;
}

const SAFE_LOCATION = /^[A-Za-z0-9._\-/]+$/;

/** The buildspec for one request, as the text StartBuild's `buildspecOverride` takes. */
export function buildspecFor(request: VerifyBuildRequest, at: BuildLocations): string {
  for (const value of [at.bucket, at.sourceKey, at.resultKey]) {
    if (!SAFE_LOCATION.test(value)) throw new Error(`unsafe build location ${JSON.stringify(value)}`);
  }
  const { limits } = request;
  const variables: Record<string, string> = {
    DV_TIMEOUT: String(Math.max(1, Math.ceil(limits.commandTimeoutMs / 1000))),
    DV_MAX_OUTPUT: String(limits.maxOutputBytes),
    ...(limits.memoryMb ? { DV_MEMORY_KB: String(limits.memoryMb * 1024) } : {}),
  };
  const spec = {
    version: 0.2,
    env: { shell: 'bash', variables },
    phases: {
      install: {
        commands: [
          `mkdir -p ${DV} "$CODEBUILD_SRC_DIR"`,
          `printf %s '${base64(RUNNER)}' | base64 -d > ${DV}/run.sh`,
          `aws s3 cp 's3://${at.bucket}/${at.sourceKey}' ${DV}/source.zip --only-show-errors`,
          `cd "$CODEBUILD_SRC_DIR" && unzip -q -o ${DV}/source.zip`,
          `echo $(( $(date +%s%3N) + ${limits.budgetMs} )) > ${DV}/end`,
        ],
      },
      build: {
        commands: request.commands.map((c, i) => `bash ${DV}/run.sh ${i} ${c.kind} '${base64(c.cwd)}' '${base64(c.run)}'`),
      },
      post_build: {
        commands: [
          `printf '{"schemaVersion":1,"root":"%s","commands":[%s]}' "$(printf %s "$CODEBUILD_SRC_DIR" | base64 -w0)" "$(paste -sd, ${DV}/lines 2>/dev/null)" > ${DV}/result.json`,
          `aws s3 cp ${DV}/result.json 's3://${at.bucket}/${at.resultKey}' --only-show-errors`,
        ],
      },
    },
  };
  return JSON.stringify(spec, null, 1);
}
