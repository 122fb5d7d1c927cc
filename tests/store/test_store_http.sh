#!/usr/bin/env bash
# `records push` and `records pull` over http to a real git server:
# git-http-backend behind a Python http.server on loopback with Basic auth
# (git_http_server.py). The credential comes from VRAMSHEET_RECORDS_TOKEN or
# from a git credential helper in a temporary HOME; a wrong one is tried once;
# a URL with a password is refused; the secrets appear in no output and
# nowhere in the records; a refusing pre-receive is reported in its words.
#
#   test_store_http.sh VRAMSHEET
set -u
VS=$1
HERE=$(cd "$(dirname "$0")" && pwd)
BACKEND=/usr/lib/git-core/git-http-backend
[ -x "$BACKEND" ] || BACKEND=$(git --exec-path 2>/dev/null)/git-http-backend
if [ ! -x "$BACKEND" ]; then
    echo "SKIPPED: git-http-backend is not installed (looked in /usr/lib/git-core and git --exec-path)"
    exit 77
fi
T=$(mktemp -d /tmp/vs_store_http_XXXXXX)
SPID=
cleanup() {
    [ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
    [ -n "${KEEP:-}" ] || rm -rf "$T" # KEEP=1: left for a look
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=tester@example.org
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=tester@example.org
# git and libgit2 read only this test's configuration
export HOME=$T/home XDG_CONFIG_HOME=$T/home/.config GIT_CONFIG_NOSYSTEM=1
unset VRAMSHEET_RECORDS_TOKEN VRAMSHEET_RECORDS_USER GIT_ASKPASS SSH_ASKPASS GIT_DIR
mkdir -p "$HOME"
export VRAMSHEET_RECORDS=$T/records
ID=http-sheet
SECRET=tok-$RANDOM$RANDOM-env          # the server's password, given by the environment
HELPER_SECRET=$SECRET                   # ... and by the credential helper (same account)

git init -q --bare -b main "$T/served/hub.git"
GIT_HTTP_BACKEND=$BACKEND /usr/bin/python3 "$HERE/git_http_server.py" "$T/served" alice "$SECRET" \
    "$T/port" "$T/server.log" 2>"$T/server.err" &
SPID=$!
for i in $(seq 1 50); do [ -s "$T/port" ] && break; sleep 0.1; done
[ -s "$T/port" ] || { echo "FAIL: the http server did not start: $(cat "$T/server.err")"; exit 1; }
URL=http://127.0.0.1:$(cat "$T/port")/hub.git
H=$T/served/hub.git
requests() { grep -c "auth=$1" "$T/server.log" 2>/dev/null || true; }

commit() { # RESERVE
    if [ -f "$VRAMSHEET_RECORDS/sheets/$ID/sheet.json" ]; then
        printf 'show %s\nreserve %s\ncommit "reserve %s"\n' "$ID" "$1" "$1" >"$T/c.vs"
    else
        printf 'sheet "http sheet"\nreserve %s\ncommit "reserve %s"\n' "$1" "$1" >"$T/c.vs"
    fi
    "$VS" run "$T/c.vs" >"$T/c.out" 2>&1 || fail "commit: $(cat "$T/c.out")"
}
n=0
sync() { # push|pull [ENV=VALUE...] -> exit status; output in $T/out (kept as $T/N.out)
    local verb=$1
    shift
    n=$((n + 1))
    printf 'records %s %s\n' "$verb" "${REMOTE:-$URL}" >"$T/s.vs"
    local t0=$SECONDS
    env "$@" timeout 60 "$VS" run "$T/s.vs" >"$T/out" 2>&1
    local rc=$?
    SECS=$((SECONDS - t0))
    cp "$T/out" "$T/$n.out"
    return $rc
}

# no credential anywhere: refused at once, saying where one can come from
commit 1GiB
sync push && fail "push without a credential succeeded"
grep -q 'asks for a credential and none was found' "$T/out" && grep -q VRAMSHEET_RECORDS_TOKEN "$T/out" &&
    grep -q 'git credential' "$T/out" || fail "no credential: $(cat "$T/out")"
[ "$(requests bad)" = 0 ] && [ "$(requests ok)" = 0 ] || fail "a credential was sent: $(cat "$T/server.log")"
ok "no credential: refused in ${SECS} s, naming VRAMSHEET_RECORDS_TOKEN and the credential helper"

# the environment's token
sync push VRAMSHEET_RECORDS_USER=alice VRAMSHEET_RECORDS_TOKEN="$SECRET" || fail "push with the token: $(cat "$T/out")"
[ "$(git -C "$H" rev-parse main)" = "$(git -C "$T/records" rev-parse main)" ] || fail "hub not at the pushed tip"
out=$(git -C "$H" fsck --strict --no-dangling 2>&1) && [ -z "$out" ] || fail "fsck hub: $out"
grep -q "POST /hub.git/git-receive-pack auth=ok 200" "$T/server.log" || fail "no authenticated receive-pack: $(cat "$T/server.log")"
ok "push over http with VRAMSHEET_RECORDS_TOKEN: the hub has the tip, fsck clean"

# a wrong token: one request with it, then a clear refusal
commit 2GiB
before=$(requests bad)
old=$(git -C "$H" rev-parse main)
sync push VRAMSHEET_RECORDS_USER=alice VRAMSHEET_RECORDS_TOKEN=wrong-token && fail "push with a wrong token succeeded"
grep -q 'refused the credential from VRAMSHEET_RECORDS_TOKEN (user alice)' "$T/out" && grep -q 'not tried again' "$T/out" ||
    fail "wrong token: $(cat "$T/out")"
[ $(($(requests bad) - before)) = 1 ] || fail "the wrong token was sent $(($(requests bad) - before)) times, want 1"
[ "$(git -C "$H" rev-parse main)" = "$old" ] || fail "a refused credential moved the hub"
ok "a wrong token: sent once, refused in ${SECS} s with a clear message"

# git's credential helper, configured in HOME, asked with the URL's parts
cat >"$T/helper.sh" <<EOF
#!/bin/sh
[ "\$1" = get ] || exit 0
cat >>"$T/helper.in"
echo username=alice
if [ -f "$T/helper.wrong" ]; then echo password=not-the-password; else echo password=$HELPER_SECRET; fi
EOF
chmod +x "$T/helper.sh"
git config --global credential.helper "$T/helper.sh"
git config --global credential.useHttpPath true
sync push || fail "push with the credential helper: $(cat "$T/out")"
[ "$(git -C "$H" rev-parse main)" = "$(git -C "$T/records" rev-parse main)" ] || fail "hub after the helper's push"
grep -qx "protocol=http" "$T/helper.in" && grep -qx "host=127.0.0.1:$(cat "$T/port")" "$T/helper.in" &&
    grep -qx "path=hub.git" "$T/helper.in" || fail "the helper was asked: $(cat "$T/helper.in")"
ok "push with a git credential helper from HOME's .gitconfig, asked for protocol, host and path"

# pull into new records, by the helper, then by the token
for how in helper token; do
    export VRAMSHEET_RECORDS=$T/records-$how
    if [ $how = helper ]; then sync pull; else sync pull VRAMSHEET_RECORDS_USER=alice VRAMSHEET_RECORDS_TOKEN="$SECRET"; fi ||
        fail "pull with the $how: $(cat "$T/out")"
    [ "$(git -C "$VRAMSHEET_RECORDS" rev-parse main 2>/dev/null)" = "$(git -C "$H" rev-parse main)" ] ||
        fail "pull with the $how: not at the hub's tip"
    cmp -s "$VRAMSHEET_RECORDS/sheets/$ID/sheet.json" "$T/records/sheets/$ID/sheet.json" ||
        fail "pull with the $how: the sheet differs"
done
export VRAMSHEET_RECORDS=$T/records
ok "pull over http with the helper and with the token: the same sheet as pushed"

# the helper's credential wrong: sent once, refused, naming the helper
touch "$T/helper.wrong"
before=$(requests bad)
sync push && fail "push with the helper's wrong credential succeeded"
grep -q 'refused the credential from your git credential helper (user alice)' "$T/out" ||
    fail "helper's wrong credential: $(cat "$T/out")"
[ $(($(requests bad) - before)) = 1 ] || fail "the helper's wrong credential was sent $(($(requests bad) - before)) times, want 1"
rm -f "$T/helper.wrong"
ok "the helper's wrong credential: sent once, refused"

# a URL with the password in it: refused before anything is sent, shown redacted
before=$(wc -l <"$T/server.log")
REMOTE="http://alice:$SECRET@127.0.0.1:$(cat "$T/port")/hub.git" sync push && fail "a URL with a password was used"
grep -q 'password in its URL' "$T/out" && grep -q 'http://alice:<redacted>@127.0.0.1' "$T/out" ||
    fail "URL with a password: $(cat "$T/out")"
[ "$(wc -l <"$T/server.log")" = "$before" ] || fail "a URL with a password reached the server"
git -C "$T/records" remote add origin "http://alice:$SECRET@127.0.0.1:$(cat "$T/port")/hub.git"
REMOTE=origin sync pull && fail "a configured remote with a password was used"
grep -q 'http://alice:<redacted>@' "$T/out" || fail "configured URL with a password: $(cat "$T/out")"
git -C "$T/records" remote remove origin
ok "a URL with user:password is refused, shown as <redacted>, and never contacted"

# a refusing pre-receive on the server: its words come back over http
mkdir -p "$H/hooks"
printf '#!/bin/sh\necho "policy: the records are frozen for the audit" >&2\nexit 1\n' >"$H/hooks/pre-receive"
chmod +x "$H/hooks/pre-receive"
commit 3GiB
old=$(git -C "$H" rev-parse main)
sync push VRAMSHEET_RECORDS_USER=alice VRAMSHEET_RECORDS_TOKEN="$SECRET" && fail "push through the refusing hook succeeded"
grep -q 'RecordsError' "$T/out" && grep -q 'pre-receive hook declined' "$T/out" &&
    grep -q 'policy: the records are frozen for the audit' "$T/out" || fail "hook over http: $(cat "$T/out")"
grep -q 'other pushers kept moving' "$T/out" && fail "a refusal read as a race"
[ "$SECS" -lt 4 ] || fail "refusal took $SECS s (retried?)"
[ "$(git -C "$H" rev-parse main)" = "$old" ] || fail "the refused push moved the hub"
git -C "$T/records" push "$URL" main >"$T/git.out" 2>&1 && fail "git push went through the hook"
grep -q 'pre-receive hook declined' "$T/git.out" && grep -q 'policy: the records are frozen' "$T/git.out" ||
    fail "git's refusal over http: $(cat "$T/git.out")"
ok "a refusing pre-receive over http: refused in ${SECS} s with the hook's words; git agrees"

# the secret is nowhere: not in an output, a file of the records, or any object
for s in "$SECRET" "$HELPER_SECRET"; do
    grep -rlF -- "$s" "$T"/*.out "$T"/c.out "$T"/records "$T"/records-* 2>/dev/null | sed 's/^/  in /' >"$T/found"
    for r in "$T"/records "$T"/records-* "$H"; do
        git -C "$r" cat-file --batch-all-objects --batch 2>/dev/null | grep -aqF -- "$s" && echo "  in an object of $r" >>"$T/found"
        git -C "$r" log --all --format=%B 2>/dev/null | grep -qF -- "$s" && echo "  in a message of $r" >>"$T/found"
    done
    [ -s "$T/found" ] && fail "a secret was written:
$(cat "$T/found")"
done
ok "no secret in $n outputs, the records' files, objects or messages"

printf 'help records\n' >"$T/h.vs"
"$VS" run "$T/h.vs" >"$T/help.txt" 2>&1
grep -q VRAMSHEET_RECORDS_TOKEN "$T/help.txt" && grep -q VRAMSHEET_RECORDS_USER "$T/help.txt" &&
    grep -q 'git credential fill' "$T/help.txt" || fail "help records does not say how to give a credential"

[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
