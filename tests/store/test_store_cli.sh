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

# run again from the top in a new process: the records hold both states, nothing is written
"$VS" run "$T/a.vs" >"$T/rerun.out" 2>&1 || fail "re-run: $(cat "$T/rerun.out")"
[ "$(git -C "$T/records" rev-list --count main)" = 2 ] || fail "re-run wrote commits"
grep -q 'Unchanged: the records .* already hold this state' "$T/rerun.out" || fail "re-run says: $(cat "$T/rerun.out")"

# SHEET@~N: the sheet's own revisions, with another sheet's commit in between
printf 'sheet "other"\nreserve 1GiB\ncommit "o1"\n' >"$T/o.vs"
"$VS" run "$T/o.vs" >/dev/null 2>&1 || fail "other sheet"
second=$(git -C "$T/records" log --format=%H -- "sheets/$ID/" | sed -n 2p)
"$VS" show "$ID@~1" --json | cmp -s - <(git -C "$T/records" show "$second:sheets/$ID/sheet.json") || fail "show @~1"
"$VS" show "$ID@HEAD~1" --json | cmp -s - <(git -C "$T/records" show "main~1:sheets/$ID/sheet.json") || fail "show @HEAD~1"
"$VS" show "$ID@~1" --json | cmp -s - <("$VS" show "$ID@HEAD~1" --json) && fail "@~1 and @HEAD~1 should differ here"
"$VS" show --help | grep -q 'HEAD~N' || fail "show --help names HEAD~N"

# hand edits in the records work tree: refused, named, kept
echo "mine" >>"$T/records/sheets/$ID/sheet.md"
printf 'show %s\nlength 4096\ncommit "longer"\n' "$ID" >"$T/c.vs"
"$VS" run "$T/c.vs" >"$T/c.out" 2>&1 && fail "commit over a hand edit succeeded"
grep -q "sheets/$ID/sheet.md" "$T/c.out" || fail "hand edit not named: $(cat "$T/c.out")"
[ "$(tail -1 "$T/records/sheets/$ID/sheet.md")" = mine ] || fail "hand edit lost"
git -C "$T/records" checkout -q HEAD -- "sheets/$ID/"

# a sheet is never merged: the same sheet changed on two sides of a bare hub
H=$T/hub.git
git init -q --bare -b main "$H"
git -C "$T/records" push -q "$H" main
git clone -q "$H" "$T/b-records"
printf 'show %s\ndecide "theirs: one 48 GB card"\ncommit "their decision"\nrecords push %s\n' "$ID" "$H" >"$T/b.vs"
VRAMSHEET_RECORDS=$T/b-records "$VS" run "$T/b.vs" >"$T/bb.out" 2>&1 || fail "b commit and push: $(cat "$T/bb.out")"
printf 'show %s\ninvalidate "a context longer than 4096 tokens"\ncommit "our invalidating condition"\n' "$ID" >"$T/a2.vs"
"$VS" run "$T/a2.vs" >"$T/a2.out" 2>&1 || fail "a commit: $(cat "$T/a2.out")"
printf 'records push %s\n' "$H" >"$T/push.vs"
"$VS" run "$T/push.vs" >"$T/a3.out" 2>&1 && fail "same-sheet push succeeded"
grep -q 'RecordsError' "$T/a3.out" && grep -q "sheets/$ID/" "$T/a3.out" || fail "push refusal: $(cat "$T/a3.out")"
printf 'records pull %s\n' "$H" >"$T/pull.vs"
"$VS" run "$T/pull.vs" >"$T/a4.out" 2>&1 && fail "same-sheet pull succeeded"
grep -q 'never merged' "$T/a4.out" || fail "pull refusal: $(cat "$T/a4.out")"
for r in "$H" "$T/records"; do
    out=$(git -C "$r" fsck --strict --no-dangling 2>&1) && [ -z "$out" ] || fail "fsck $r: $out"
done
[ "$(git -C "$H" log -1 --format=%s main)" = "$ID: their decision" ] || fail "hub tip"
[ "$(git -C "$T/records" log -1 --format=%s main)" = "$ID: our invalidating condition" ] || fail "local tip"
git -C "$T/records" show "main:sheets/$ID/sheet.json" | grep -q 'theirs' && fail "theirs merged into ours"
[ -z "$(git -C "$T/records" status --porcelain)" ] || fail "local work tree after refusals"
# keep ours: commit ... replace joins both histories, then the push goes through
printf 'show %s\ncommit "keep our invalidating condition" replace\nrecords push %s\n' "$ID" "$H" >"$T/a5.vs"
"$VS" run "$T/a5.vs" >"$T/a5.out" 2>&1 || fail "replace and push: $(cat "$T/a5.out")"
git -C "$H" merge-base --is-ancestor "$(git -C "$T/b-records" rev-parse main)" main || fail "theirs not in the hub's history"
git -C "$H" show "main:sheets/$ID/sheet.json" | grep -q '4096 tokens' || fail "ours not at the hub's tip"
git -C "$H" show "main:sheets/$ID/sheet.json" | grep -q 'theirs' && fail "theirs merged at the hub's tip"

# vramsheet show checks the record as the kernel's show does. A stale sheet.md
# (edited by hand and committed with git): never printed as the record's page;
# the page of its sheet.json is, and the exit status says so.
git -C "$T/records" show "main:sheets/$ID/sheet.md" >"$T/page.md"
echo "hand-written: four 80 GB cards" >>"$T/records/sheets/$ID/sheet.md"
git -C "$T/records" commit -q -am "$ID: a hand edit of the page"
"$VS" show "$ID" >"$T/stale.out" 2>"$T/stale.err"
[ $? = 3 ] || fail "show of a stale sheet.md exits 3, not $?"
grep -q 'four 80 GB cards' "$T/stale.out" && fail "show printed the stale page"
cmp -s "$T/stale.out" "$T/page.md" || fail "show did not print the page of the record's sheet.json"
grep -q "sheets/$ID/sheet.md .* is not the page of its sheet.json" "$T/stale.err" || fail "stale page not said: $(cat "$T/stale.err")"
"$VS" show "$ID" --json >/dev/null || fail "show --json of a valid record with a stale page"
"$VS" show "$ID@~1" >/dev/null || fail "show of the revision before the hand edit"
# an invalid record (committed with git): refused with the kernel's words, exit 1
sed -i 's/"params": 7000000000/"params": "seven billion"/' "$T/records/sheets/$ID/sheet.json"
git -C "$T/records" commit -q -am "$ID: params as words"
"$VS" show "$ID" >"$T/bad.out" 2>"$T/bad.err"
[ $? = 1 ] || fail "show of an invalid record exits 1"
[ -s "$T/bad.out" ] && fail "show printed an invalid record: $(head -3 "$T/bad.out")"
grep -q "vramsheet show: sheets/$ID/sheet.json at .*params" "$T/bad.err" || fail "invalid record: $(cat "$T/bad.err")"
"$VS" show "$ID" --json >"$T/badj.out" 2>"$T/badj.err"
[ $? = 1 ] || fail "show --json of an invalid record exits 1"
[ -s "$T/badj.out" ] && fail "show --json printed an invalid record"
printf 'show %s\n' "$ID" >"$T/ks.vs"
"$VS" run "$T/ks.vs" >"$T/ks.out" 2>&1 && fail "the kernel's show accepted the invalid record"
reason=$(sed 's/^vramsheet show: //' "$T/bad.err")
grep -qF "$reason" "$T/ks.out" || fail "the kernel's show and vramsheet show differ: $(cat "$T/ks.out") / $reason"
git -C "$T/records" reset -q --hard HEAD~2

[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "ok: run/commit, re-run, log, show @~N/@HEAD~N, hand edits, same-sheet divergence, show of a stale page and of an invalid record; git log/show/status/fsck agree"
