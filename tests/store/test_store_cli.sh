#!/usr/bin/env bash
# `vramsheet run` cells that commit, then `vramsheet log` / `vramsheet show`, with
# the git CLI as the independent reader.   test_store_cli.sh VRAMSHEET
set -u
VS=$1
T=$(mktemp -d /tmp/vs_store_cli_XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=tester@example.org
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=tester@example.org
export VRAMSHEET_RECORDS=$T/records
ID=llama-7b-campaign-a

cat >"$T/a.vs" <<'EOF'
sheet "Llama 7B campaign A"
model meta-llama/Llama-2-7b-chat-hf params=7B
format bf16
reserve 6GiB
commit "first estimate"
# %%
reserve kv_cache 16GiB status=estimated source="2 x 32 x 32 x 128 x 2 B x 4096 x 8"
commit "with the KV cache"
EOF
"$VS" run "$T/a.vs" >"$T/run.out" 2>&1 || fail "run: $(cat "$T/run.out")"

[ "$(git -C "$T/records" log --format=%s main)" = "$ID: with the KV cache
$ID: first estimate" ] || fail "git log: $(git -C "$T/records" log --format=%s)"
[ -z "$(git -C "$T/records" status --porcelain)" ] || fail "git status not clean"
out=$(git -C "$T/records" fsck --strict --no-dangling 2>&1) && [ -z "$out" ] || fail "fsck: $out"
git -C "$T/records" show "main:sheets/$ID/sheet.json" | grep -q '"params": 7000000000' || fail "params"
git -C "$T/records" show "main~1:sheets/$ID/sheet.md" | grep -q '14,000,000,000 B' || fail "md weights"

# vramsheet log: every commit, and one sheet's, newest first, full ids
"$VS" log >"$T/log" || fail "log"
[ "$(cut -d' ' -f1 "$T/log")" = "$(git -C "$T/records" rev-list main)" ] || fail "log ids"
[ "$("$VS" log "$ID" -n 1 | cut -d' ' -f1)" = "$(git -C "$T/records" rev-parse main)" ] || fail "log -n"
"$VS" log "$ID" --json | grep -q '"kind": "history"' || fail "log --json"
"$VS" log --records "$T/nowhere" >/dev/null || fail "log of records not created yet"
[ -z "$("$VS" log --records "$T/nowhere")" ] || fail "log of nothing prints nothing"
"$VS" log nope >"$T/nope.out" 2>&1; [ $? = 1 ] || fail "log of an unknown sheet exits 1"
grep -q "no sheet 'nope' in the records" "$T/nope.out" || fail "log of an unknown sheet says so: $(cat "$T/nope.out")"

# vramsheet show: byte for byte what git has, at revisions
"$VS" show "$ID@HEAD~1" --json >"$T/show.json" || fail "show --json"
git -C "$T/records" show "main~1:sheets/$ID/sheet.json" | cmp -s - "$T/show.json" || fail "show bytes"
short=$(git -C "$T/records" rev-parse --short=8 main~1)
"$VS" show "$ID@$short" | cmp -s - <(git -C "$T/records" show "main~1:sheets/$ID/sheet.md") || fail "show md at prefix"
"$VS" show "$ID" --records "$T/records" | grep -q 'kv_cache' || fail "show tip"
"$VS" show nope >/dev/null 2>&1; [ $? = 1 ] || fail "show of a missing sheet exits 1"
"$VS" show "Bad/Id" >/dev/null 2>&1; [ $? = 2 ] || fail "show of a bad id exits 2"
"$VS" log --help | grep -q 'usage: vramsheet log' || fail "log --help"
"$VS" show --help | grep -q 'usage: vramsheet show' || fail "show --help"

# an unusable records path is a RecordsError, the cell fails
mkdir -p "$T/junk" && echo x >"$T/junk/file"
printf 'sheet "x"\ncommit "y"\n' >"$T/b.vs"
VRAMSHEET_RECORDS=$T/junk "$VS" run "$T/b.vs" >"$T/b.out" 2>&1 && fail "commit to a non-repository folder succeeded"
grep -q 'RecordsError' "$T/b.out" || fail "no RecordsError: $(cat "$T/b.out")"

[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: run/commit, log, show, git log/show/status/fsck agree"
