#!/usr/bin/env bash
# Prepares, once, the real public repositories `npm run bench` measures (job `real`,
# bench/real-repos.bench.ts): for each entry of bench/real-repos.json, a bare repository holding
# only the default branch's tip (depth 1), the same shape a fresh clone source has, plus a
# manifest.json recording the commit used. Idempotent: a repository already prepared is kept
# (--force prepares it again).
#
#   scripts/prepare-bench-repos.sh [--force]
#
# BENCH_REPOS_DIR     where to put them (default bench/.repos, git-ignored)
# BENCH_REPOS_SOURCE  a directory of local bare repositories named <owner>+<name>/repo to clone
#                     from instead of https://github.com/<owner>/<name>.git (offline machines)
# BENCH_REPOS_LIST    another list than bench/real-repos.json (the benchmark reads it too)
#
# The pinned commit is fetched when the source still has it, else the default branch's tip;
# the manifest says which.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${BENCH_REPOS_DIR:-$root/bench/.repos}
force=0
[[ "${1:-}" == "--force" ]] && force=1
mkdir -p "$dir"

# name owner/repo commit, one line per repository, from the one list the benchmark reads too.
mapfile -t entries < <(node -e '
  for (const r of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))) console.log(`${r.name} ${r.repo} ${r.commit}`);
' "${BENCH_REPOS_LIST:-$root/bench/real-repos.json}")

# A local copy may be partial (a promisor pack without its largest blobs): upload-pack then
# cannot send the tip. Commit the same tree minus the missing blobs, with the tip's author,
# date and message and no parent, and say in the manifest which paths were left out.
rewrite_without_missing_blobs() {
  local src=$1 part=$2 want=$3 branch=$4 source_tip
  source_tip=$(git -C "$src" rev-parse -q --verify "$want^{commit}" || git -C "$src" rev-parse "refs/heads/$branch")
  rm -f "$part"/objects/pack/tmp_pack_*  # left by the failed fetches
  echo "$src/objects" >"$part/objects/info/alternates"
  omitted=$(git -C "$part" ls-tree -r "$source_tip" | awk '$2 == "blob" { print $3 " " $4 }' |
    git -C "$part" cat-file --batch-check='%(objectname) %(rest)' 2>/dev/null | awk '$2 == "missing" { print $1 }' || true)
  local missing_paths
  missing_paths=$(git -C "$part" ls-tree -r "$source_tip" | awk -v m="$omitted" 'BEGIN { n = split(m, a, "\n"); for (i = 1; i <= n; i++) miss[a[i]] = 1 } ($3 in miss) { sub(/^[^\t]*\t/, ""); print }')
  [[ -n "$missing_paths" ]] || { echo "prepare-bench-repos: fetch from $src failed and no blob is missing" >&2; exit 1; }
  local index=$part/rewrite.index tree
  GIT_INDEX_FILE=$index git -C "$part" --work-tree="$part" read-tree "$source_tip"
  printf '%s\n' "$missing_paths" | GIT_INDEX_FILE=$index git -C "$part" --work-tree="$part" update-index --force-remove --stdin
  tree=$(GIT_INDEX_FILE=$index git -C "$part" write-tree)
  rm -f "$index"
  tip=$(git -C "$part" cat-file commit "$source_tip" | sed '1,/^$/d' |
    GIT_AUTHOR_NAME=$(git -C "$part" log -1 --format=%an "$source_tip") GIT_AUTHOR_EMAIL=$(git -C "$part" log -1 --format=%ae "$source_tip") GIT_AUTHOR_DATE=$(git -C "$part" log -1 --format=%aI "$source_tip") \
    GIT_COMMITTER_NAME=$(git -C "$part" log -1 --format=%cn "$source_tip") GIT_COMMITTER_EMAIL=$(git -C "$part" log -1 --format=%ce "$source_tip") GIT_COMMITTER_DATE=$(git -C "$part" log -1 --format=%cI "$source_tip") \
    git -C "$part" commit-tree "$tree")
  git -C "$part" update-ref "refs/heads/$branch" "$tip"
  # Copy what the new commit reaches into a pack of its own, then drop the borrowed store.
  echo "$tip" | git -C "$part" pack-objects -q --revs "$part/objects/pack/pack" >/dev/null
  rm -f "$part/objects/info/alternates"
  git -C "$part" prune-packed
  git -C "$part" fsck --connectivity-only "$tip" >/dev/null
  omitted=$(printf '%s\n' "$missing_paths" | paste -sd, -)
  echo "prepare-bench-repos: $(basename "$part" .git.part): $source_tip lacks blobs in $src; committed its tree without $omitted as $tip" >&2
  upstream=$source_tip
}

manifest=()
for entry in "${entries[@]}"; do
  read -r name repo commit <<<"$entry"
  dest=$dir/$name.git
  if [[ -n "${BENCH_REPOS_SOURCE:-}" ]]; then
    url="file://$(cd "$BENCH_REPOS_SOURCE" && pwd)/${repo/\//+}/repo"
  else
    url="https://github.com/$repo.git"
  fi
  if [[ $force == 0 ]] && git -C "$dest" rev-parse -q --verify HEAD^{commit} >/dev/null 2>&1; then
    echo "prepare-bench-repos: $name already prepared ($(git -C "$dest" rev-parse HEAD))" >&2
  else
    echo "prepare-bench-repos: $name from $url" >&2
    branch=$(git ls-remote --symref "$url" HEAD | sed -n 's|^ref: refs/heads/\([^[:space:]]*\)[[:space:]]*HEAD$|\1|p')
    [[ -n "$branch" ]] || { echo "prepare-bench-repos: $name: no default branch at $url" >&2; exit 1; }
    rm -rf "$dest.part"
    git init -q --bare "$dest.part"
    omitted=""
    if git -C "$dest.part" fetch -q --depth 1 --no-tags "$url" "$commit" 2>/dev/null; then
      tip=$commit
    elif git -C "$dest.part" fetch -q --depth 1 --no-tags "$url" "refs/heads/$branch" 2>/dev/null; then
      echo "prepare-bench-repos: $name: pinned commit $commit not reachable, took the tip of $branch" >&2
      tip=$(git -C "$dest.part" rev-parse FETCH_HEAD)
    elif [[ -n "${BENCH_REPOS_SOURCE:-}" ]]; then
      rewrite_without_missing_blobs "${url#file://}" "$dest.part" "$commit" "$branch"
      printf ', "upstreamCommit": "%s", "omitted": "%s"' "$upstream" "$omitted" >"$dest.part/bench-upstream"
    else
      echo "prepare-bench-repos: $name: fetch from $url failed" >&2
      exit 1
    fi
    git -C "$dest.part" update-ref "refs/heads/$branch" "$tip"
    git -C "$dest.part" symbolic-ref HEAD "refs/heads/$branch"
    rm -f "$dest.part/FETCH_HEAD"
    rm -rf "$dest"
    mv "$dest.part" "$dest"
  fi
  tip=$(git -C "$dest" rev-parse HEAD)
  files=$(git -C "$dest" ls-tree -r --name-only HEAD | wc -l)
  pinned=$([[ $tip == "$commit" ]] && echo true || echo false)
  extra=""
  [[ -f "$dest/bench-upstream" ]] && extra=$(cat "$dest/bench-upstream")
  manifest+=("{\"name\": \"$name\", \"repo\": \"$repo\", \"branch\": \"$(git -C "$dest" symbolic-ref --short HEAD)\", \"commit\": \"$tip\", \"pinned\": $pinned, \"files\": $files$extra}")
done

{
  echo "["
  for i in "${!manifest[@]}"; do
    sep=$([[ $i -lt $((${#manifest[@]} - 1)) ]] && echo "," || echo "")
    echo "  ${manifest[$i]}$sep"
  done
  echo "]"
} >"$dir/manifest.json"
echo "prepare-bench-repos: ${#manifest[@]} repositories in $dir (manifest.json)" >&2
