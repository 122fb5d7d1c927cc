#!/usr/bin/env bash
# `records push` against a server's policy, with git as the referee: a path
# remote's hooks run as `git push` runs them (same stdin, same verdict), and a
# refusal, over a path or from a real `git daemon` on loopback, stops at once
# with the server's words instead of being retried as a race.
#
#   test_store_server.sh VRAMSHEET [PART]     PART: path | daemon | all
set -u
VS=$1
PART=${2:-all}
T=$(mktemp -d /tmp/vs_store_server_XXXXXX)
DPID=
cleanup() {
    [ -n "$DPID" ] && kill "$DPID" 2>/dev/null && wait "$DPID" 2>/dev/null
    rm -rf "$T"
}
trap cleanup EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=tester@example.org
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=tester@example.org
export VRAMSHEET_RECORDS=$T/records
ID=policy-sheet

# a commit in the records, then `records push URL` in a second cell
commit_and_push() { # URL RESERVE -> exit status of the push cell; output in $T/push.out
    printf 'sheet "policy sheet"\nreserve %s\ncommit "reserve %s"\n' "$2" "$2" >"$T/c.vs"
    [ -f "$T/records/sheets/$ID/sheet.json" ] && printf 'show %s\nreserve %s\ncommit "reserve %s"\n' "$ID" "$2" "$2" >"$T/c.vs"
    "$VS" run "$T/c.vs" >"$T/c.out" 2>&1 || fail "commit: $(cat "$T/c.out")"
    printf 'records push %s\n' "$1" >"$T/p.vs"
    local t0=$SECONDS
    "$VS" run "$T/p.vs" >"$T/push.out" 2>&1
    local rc=$?
    PUSH_SECONDS=$((SECONDS - t0))
    return $rc
}

# the hook writes what it was given where the test can read it
hook() { # REPO NAME EXIT MESSAGE
    mkdir -p "$1/hooks"
    cat >"$1/hooks/$2" <<EOF
#!/bin/sh
if [ "$2" = update ]; then echo "\$@" >>"$T/$2.args"; else cat >>"$T/$2.stdin"; fi
[ -n "$4" ] && echo "$4" >&2
exit $3
EOF
    chmod +x "$1/hooks/$2"
}

path_remote() {
    local H=$T/hub.git old new
    git init -q --bare -b main "$H"
    commit_and_push "$H" 1GiB || fail "first push (no hooks): $(cat "$T/push.out")"
    # a hook that accepts: it runs, with git's stdin ("OLD NEW REF") and arguments
    hook "$H" pre-receive 0 ""
    hook "$H" update 0 ""
    hook "$H" post-receive 0 ""
    old=$(git -C "$H" rev-parse main)
    commit_and_push "$H" 2GiB || fail "push through accepting hooks: $(cat "$T/push.out")"
    new=$(git -C "$T/records" rev-parse main)
    [ "$(git -C "$H" rev-parse main)" = "$new" ] || fail "hub not at the pushed commit"
    [ "$(cat "$T/pre-receive.stdin" 2>/dev/null)" = "$old $new refs/heads/main" ] ||
        fail "pre-receive stdin: '$(cat "$T/pre-receive.stdin" 2>/dev/null)', want '$old $new refs/heads/main'"
    [ "$(cat "$T/update.args" 2>/dev/null)" = "refs/heads/main $old $new" ] ||
        fail "update arguments: '$(cat "$T/update.args" 2>/dev/null)'"
    [ "$(cat "$T/post-receive.stdin" 2>/dev/null)" = "$old $new refs/heads/main" ] ||
        fail "post-receive stdin: '$(cat "$T/post-receive.stdin" 2>/dev/null)'"
    ok "a path remote's pre-receive, update and post-receive run with git's stdin and arguments"

    # a pre-receive that refuses: refused at once, in the hook's words; the hub is unchanged
    hook "$H" pre-receive 1 "policy: the records are frozen for the audit"
    old=$(git -C "$H" rev-parse main)
    commit_and_push "$H" 3GiB && fail "push through a refusing pre-receive succeeded"
    grep -q 'RecordsError' "$T/push.out" || fail "no RecordsError: $(cat "$T/push.out")"
    grep -q 'pre-receive hook declined' "$T/push.out" || fail "no status: $(cat "$T/push.out")"
    grep -q 'policy: the records are frozen for the audit' "$T/push.out" || fail "no hook words: $(cat "$T/push.out")"
    grep -q 'other pushers kept moving' "$T/push.out" && fail "a refusal read as a race: $(cat "$T/push.out")"
    [ "$PUSH_SECONDS" -lt 4 ] || fail "refusal took $PUSH_SECONDS s (retried?)"
    [ "$(git -C "$H" rev-parse main)" = "$old" ] || fail "the refused push moved the hub"
    # git agrees: the same push with git is refused by the same hook
    git -C "$T/records" push "$H" main >"$T/git.out" 2>&1 && fail "git push went through the hook"
    grep -q 'pre-receive hook declined' "$T/git.out" || fail "git's refusal: $(cat "$T/git.out")"
    [ "$(git -C "$H" rev-parse main)" = "$old" ] || fail "git push moved the hub"
    ok "a refusing pre-receive: vramsheet and git both refused, in ${PUSH_SECONDS} s, with the hook's words"

    # an update hook that refuses: the same
    hook "$H" pre-receive 0 ""
    hook "$H" update 1 "update: not on this branch"
    commit_and_push "$H" 4GiB && fail "push through a refusing update hook succeeded"
    grep -q 'hook declined' "$T/push.out" && grep -q 'update: not on this branch' "$T/push.out" ||
        fail "update refusal: $(cat "$T/push.out")"
    git -C "$T/records" push "$H" main >"$T/git.out" 2>&1 && fail "git push went through the update hook"
    [ "$(git -C "$H" rev-parse main)" = "$old" ] || fail "an update hook's refusal moved the hub"
    ok "a refusing update hook: both refused"

    # a hook git ignores (not executable) is ignored by both
    chmod -x "$H/hooks/update"
    commit_and_push "$H" 5GiB || fail "push with a non-executable hook: $(cat "$T/push.out")"
    [ "$(git -C "$H" rev-parse main)" = "$(git -C "$T/records" rev-parse main)" ] || fail "hub after the ignored hook"

    # hooks that only git can run, and no git: refused, saying why
    chmod +x "$H/hooks/update"
    hook "$H" update 0 ""
    printf 'show %s\nreserve 6GiB\ncommit "six"\n' "$ID" >"$T/c6.vs"
    "$VS" run "$T/c6.vs" >/dev/null 2>&1 || fail "commit six"
    printf 'records push %s\n' "$H" >"$T/p.vs"
    PATH=/nonexistent "$VS" run "$T/p.vs" >"$T/nogit.out" 2>&1 && fail "push with hooks and no git succeeded"
    grep -q 'hooks (pre-receive, update, post-receive)' "$T/nogit.out" && grep -q 'git could not be started' "$T/nogit.out" ||
        fail "no git: $(cat "$T/nogit.out")"
    out=$(git -C "$H" fsck --strict --no-dangling 2>&1) && [ -z "$out" ] || fail "fsck hub: $out"
    ok "no git on PATH and hooks there: refused with the reason; fsck clean"
}

daemon() {
    local D=$T/served H port i
    H=$D/hub.git
    mkdir -p "$D"
    git init -q --bare -b main "$H"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    git daemon --base-path="$D" --export-all --enable=receive-pack --listen=127.0.0.1 --port="$port" \
        --reuseaddr "$D" >"$T/daemon.log" 2>&1 &
    DPID=$!
    for i in $(seq 1 50); do
        git ls-remote "git://127.0.0.1:$port/hub.git" >/dev/null 2>&1 && break
        sleep 0.1
    done
    if ! git ls-remote "git://127.0.0.1:$port/hub.git" >/dev/null 2>&1; then
        echo "SKIPPED: git daemon did not start on 127.0.0.1:$port: $(cat "$T/daemon.log")"
        exit 77
    fi
    local url=git://127.0.0.1:$port/hub.git old
    commit_and_push "$url" 1GiB || fail "push to git daemon: $(cat "$T/push.out")"
    [ "$(git -C "$H" rev-parse main)" = "$(git -C "$T/records" rev-parse main)" ] || fail "daemon hub tip"
    hook "$H" pre-receive 1 "policy: pushes to this hub need a signed-off message"
    old=$(git -C "$H" rev-parse main)
    commit_and_push "$url" 2GiB && fail "push through the daemon's refusing hook succeeded"
    grep -q 'pre-receive hook declined' "$T/push.out" || fail "daemon: no status: $(cat "$T/push.out")"
    grep -q 'policy: pushes to this hub need a signed-off message' "$T/push.out" || fail "daemon: no hook words: $(cat "$T/push.out")"
    grep -q 'other pushers kept moving' "$T/push.out" && fail "daemon: a refusal read as a race"
    [ "$PUSH_SECONDS" -lt 4 ] || fail "daemon refusal took $PUSH_SECONDS s (retried?)"
    [ "$(git -C "$H" rev-parse main)" = "$old" ] || fail "the refused push moved the daemon's hub"
    git -C "$T/records" push "$url" main >"$T/git.out" 2>&1 && fail "git push went through the daemon's hook"
    grep -q 'pre-receive hook declined' "$T/git.out" || fail "git's refusal over the daemon: $(cat "$T/git.out")"
    ok "git daemon with a refusing pre-receive: refused in ${PUSH_SECONDS} s with the server's words; git agrees"
}

case $PART in
path) path_remote ;;
daemon) daemon ;;
all) path_remote; rm -rf "$T/records" "$T"/*.stdin "$T"/*.args; daemon ;;
*) echo "unknown part $PART"; exit 2 ;;
esac
[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
