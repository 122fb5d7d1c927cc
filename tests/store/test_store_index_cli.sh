#!/usr/bin/env bash
# The revision index through the real binary, git as the reader: `vramsheet log`
# and `show` agree with git log on a history of commits by vramsheet and by
# git itself; a shallow clone lists down to its boundary and says so; a
# revision that searches messages is refused.
#   test_store_index_cli.sh VRAMSHEET
set -uo pipefail
vs=$1
tmp=$(mktemp -d /tmp/vs_store_index_cli_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

export VRAMSHEET_RECORDS=$tmp/records
export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@example.org
export GIT_COMMITTER_NAME=T GIT_COMMITTER_EMAIL=t@example.org
for i in 1 2 3 4 5; do
    printf 'sheet "plan a"\nmodel llama-3-8b\nlength %d\ncommit "length %d"\n' \
        $((1000 * i)) $((1000 * i)) > "$tmp/a$i.vs"
    [ "$i" = 1 ] || sed -i 's/^sheet "plan a"/show plan-a/' "$tmp/a$i.vs"
    "$vs" run "$tmp/a$i.vs" > /dev/null || fail "run a$i"
    # another sheet between, and a commit made with git itself
    printf 'sheet "plan b %d"\ncommit "b"\n' "$i" > "$tmp/b$i.vs"
    "$vs" run "$tmp/b$i.vs" > /dev/null || fail "run b$i"
done
echo "notes" > "$VRAMSHEET_RECORDS/NOTES" && git -C "$VRAMSHEET_RECORDS" add NOTES &&
    git -C "$VRAMSHEET_RECORDS" commit -qm "notes by hand" || fail "git commit"

# the index and git agree, in order
"$vs" log plan-a > "$tmp/log" || fail "log plan-a"
git -C "$VRAMSHEET_RECORDS" log --format=%H -- sheets/plan-a/ > "$tmp/git-log"
cut -d' ' -f1 "$tmp/log" | cmp -s - "$tmp/git-log" || fail "log plan-a differs from git log"
[ "$(wc -l < "$tmp/log")" = 5 ] || fail "log plan-a: $(wc -l < "$tmp/log") lines, want 5"
[ -f "$VRAMSHEET_RECORDS/.git/vramsheet/index.heads" ] || fail "no index.heads"
"$vs" show plan-a@~1 --json > "$tmp/show1" || fail "show plan-a@~1"
c=$(sed -n 2p "$tmp/git-log")
git -C "$VRAMSHEET_RECORDS" show "$c:sheets/plan-a/sheet.json" | cmp -s - "$tmp/show1" ||
    fail "show plan-a@~1 differs from git show $c"

# a message search is not a revision
if "$vs" show 'plan-a@:/length' > /dev/null 2> "$tmp/err"; then fail "show @:/ accepted"; fi
grep -q "searches commit messages" "$tmp/err" || fail "show @:/: $(cat "$tmp/err")"

# a shallow clone: the three latest commits (notes, b5, a5)
git clone -q --depth 3 "file://$VRAMSHEET_RECORDS" "$tmp/shallow" || fail "clone"
"$vs" log plan-a --records "$tmp/shallow" > "$tmp/slog" 2> "$tmp/serr" || fail "log in the clone: $(cat "$tmp/serr")"
[ "$(wc -l < "$tmp/slog")" = 1 ] || fail "shallow log plan-a: $(cat "$tmp/slog")"
grep -q "shallow clone" "$tmp/serr" || fail "shallow log says nothing of the boundary"
"$vs" log --records "$tmp/shallow" > "$tmp/sall" 2> "$tmp/serr" || fail "log all in the clone: $(cat "$tmp/serr")"
[ "$(wc -l < "$tmp/sall")" = 3 ] || fail "shallow log: $(wc -l < "$tmp/sall") lines, want 3"
"$vs" show plan-a@~0 --records "$tmp/shallow" > /dev/null 2> "$tmp/serr" || fail "show @~0 in the clone"
if "$vs" show plan-a@~2 --records "$tmp/shallow" > /dev/null 2> "$tmp/serr"; then
    fail "show @~2 beyond the boundary accepted"
fi
grep -q "shallow clone" "$tmp/serr" || fail "show @~2 in the clone: $(cat "$tmp/serr")"
grep -q "object not found" "$tmp/serr" && fail "show @~2: object not found"

[ "$fails" = 0 ] && echo "ok" && exit 0
echo "$fails failure(s)"
exit 1
