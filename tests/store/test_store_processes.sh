#!/usr/bin/env bash
# Multi-process tests of the records store, with the git CLI as the independent
# reader: concurrent writers lose nothing, the same-sheet race is refused, kill -9
# leaves a clean repository, racing pushers to a bare repository lose nothing.
#
#   test_store_processes.sh HELPER [PART]    PART: concurrent | race | kill | lockloop | push | all
set -u
HELPER=$1
PART=${2:-all}
T=$(mktemp -d /tmp/vs_store_proc_XXXXXX)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
export GIT_AUTHOR_NAME=tester GIT_AUTHOR_EMAIL=tester@example.org
export GIT_COMMITTER_NAME=tester GIT_COMMITTER_EMAIL=tester@example.org

fsck_clean() { # fsck --strict exits 0 and says nothing (dangling objects of lost races aside)
    local out
    out=$(git -C "$1" fsck --strict --no-dangling 2>&1) || { fail "fsck $1: $out"; return; }
    [ -z "$out" ] || fail "fsck $1: $out"
}

concurrent() {
    local R=$T/conc N=200
    "$HELPER" commit "$R" alpha $N >"$T/a.out" 2>"$T/a.err" &
    local p1=$!
    "$HELPER" commit "$R" beta $N >"$T/b.out" 2>"$T/b.err" &
    local p2=$!
    wait $p1 || fail "writer alpha: $(cat "$T/a.err")"
    wait $p2 || fail "writer beta: $(cat "$T/b.err")"
    [ "$(git -C "$R" rev-list --count main)" = $((2 * N)) ] || fail "expected $((2 * N)) commits"
    sort "$T/a.out" "$T/b.out" >"$T/reported"
    git -C "$R" rev-list main | sort >"$T/present"
    cmp -s "$T/reported" "$T/present" || fail "reported commits differ from the branch"
    [ "$(git -C "$R" log --format=%H -- sheets/alpha | wc -l)" = $N ] || fail "alpha history"
    [ "$(git -C "$R" log --format=%H -- sheets/beta | wc -l)" = $N ] || fail "beta history"
    git -C "$R" show main:sheets/alpha/sheet.json | grep -q "\"n\": $N," || fail "alpha last"
    git -C "$R" show main:sheets/beta/sheet.json | grep -q "\"n\": $N," || fail "beta last"
    [ -z "$(git -C "$R" status --porcelain)" ] || fail "status not clean: $(git -C "$R" status --porcelain)"
    git -C "$R" diff --quiet HEAD || fail "work tree differs from HEAD"
    fsck_clean "$R"
    ok "two writers x $N commits: all $((2 * N)) there, status clean, fsck clean"
}

race() {
    local R=$T/race i won lost b r1 r2
    "$HELPER" commit "$R" shared 1 >/dev/null || fail "seed"
    won=0
    lost=0
    for i in $(seq 1 15); do
        b=$("$HELPER" blob "$R" shared)
        "$HELPER" race "$R" shared "$b" >/dev/null 2>"$T/r1.err" &
        local p1=$!
        "$HELPER" race "$R" shared "$b" >/dev/null 2>"$T/r2.err" &
        local p2=$!
        wait $p1; r1=$?
        wait $p2; r2=$?
        if { [ $r1 = 0 ] && [ $r2 = 3 ]; } || { [ $r1 = 3 ] && [ $r2 = 0 ]; }; then
            won=$((won + 1))
            lost=$((lost + 1))
        else
            fail "round $i: exits $r1 and $r2 (want one 0, one 3): $(cat "$T/r1.err" "$T/r2.err")"
        fi
    done
    [ "$(git -C "$R" rev-list --count main)" = $((1 + won)) ] || fail "race: commits $(git -C "$R" rev-list --count main), winners $won"
    fsck_clean "$R"
    ok "same-sheet race: 15 rounds, one written and one refused each time"
}

kill9() {
    local R=$T/kill i pid out
    "$HELPER" commit "$R" seed 1 >/dev/null || fail "seed"
    for i in 1 2 3 4 5 6; do
        "$HELPER" commit "$R" k$((i % 2)) 0 >/dev/null 2>&1 &
        pid=$!
        sleep 0.$((RANDOM % 3 + 1))$((RANDOM % 10))
        kill -9 $pid
        wait $pid 2>/dev/null
        git -C "$R" rev-parse --verify -q main >/dev/null || fail "branch unreadable after kill $i"
        git -C "$R" log --oneline main >/dev/null || fail "log after kill $i"
    done
    fsck_clean "$R"
    git -C "$R" ls-tree -r main >/dev/null || fail "tree unreadable"
    # the next writer proceeds: a lock a killed writer left is recognised and removed
    out=$(VRAMSHEET_RECORDS_WAIT_MS=2000 "$HELPER" commit "$R" after 1 2>&1) || fail "commit after the kills: $out"
    fsck_clean "$R"
    # a commit killed halfway left its sheet half-synced; the next open repaired it
    out=$(git -C "$R" status --porcelain)
    [ -z "$out" ] || fail "work tree not clean after the next open: $out"
    [ -z "$(ls -A "$R/.git/vramsheet-sync" 2>/dev/null)" ] || fail "journal entries left behind"
    for i in 0 1; do
        [ "$(git -C "$R" show main:sheets/k$i/sheet.json 2>/dev/null)" = "$(cat "$R/sheets/k$i/sheet.json" 2>/dev/null)" ] ||
            fail "sheets/k$i/sheet.json differs from the tip"
    done
    ok "kill -9 during commits x6: fsck clean, branch readable, next commit fine, work tree repaired"
    # A writer killed while it held index.lock (the flake of issue 15's kill test:
    # every later commit found the index locked, moved the branch but left the
    # index behind) is recognised by the lock naming it, and the lock is removed.
    local dead
    sleep 0 &
    dead=$!
    wait $dead
    printf 'vramsheet %s\n' $dead >"$R/.git/index.lock"
    out=$(VRAMSHEET_RECORDS_WAIT_MS=500 "$HELPER" commit "$R" after 1 2>&1) || fail "commit over a dead writer's index.lock: $out"
    echo "$out" | grep -q warning && fail "warned over a dead writer's index.lock: $out"
    [ ! -e "$R/.git/index.lock" ] || fail "a dead writer's index.lock was left"
    out=$(git -C "$R" status --porcelain)
    [ -z "$out" ] || fail "work tree not clean after a dead writer's index.lock: $out"
    # one that a git command holds (index data, not our name) is left to it
    printf 'DIRC' >"$R/.git/index.lock"
    out=$(VRAMSHEET_RECORDS_WAIT_MS=400 "$HELPER" commit "$R" after 1 2>&1)
    echo "$out" | grep -q 'index.lock' || fail "no word of a git command's index.lock: $out"
    [ -e "$R/.git/index.lock" ] || fail "a git command's index.lock was removed"
    rm -f "$R/.git/index.lock"
    [ -n "$(ls -A "$R/.git/vramsheet-sync" 2>/dev/null)" ] || fail "no journal entry for the sheet left behind"
    "$HELPER" blob "$R" after >/dev/null || fail "open after the git command's lock went"
    out=$(git -C "$R" status --porcelain)
    [ -z "$out" ] || fail "work tree not clean after the next open: $out"
    [ -z "$(ls -A "$R/.git/vramsheet-sync" 2>/dev/null)" ] || fail "journal entries left behind (index.lock)"
    [ -z "$(ls "$R/.git" | grep vramsheet-index)" ] || fail "temporary index files left: $(ls "$R/.git")"
    ok "an index.lock of a writer that died is removed; a git command's is waited on, then repaired"
}

# kill -9 a writer at random points of its commits, again and again: after each
# kill the next writer commits (a branch lock the dead one left is removed, and
# said so); a branch lock a live git command holds is waited on and left to it.
lockloop() {
    local R=$T/lockloop i pid out n=40 removed=0 before
    "$HELPER" commit "$R" seed 1 >/dev/null || fail "seed"
    # the lock a writer killed before it wrote the branch leaves: empty, a minute old
    touch -d '-60 seconds' "$R/.git/refs/heads/main.lock"
    out=$(VRAMSHEET_RECORDS_WAIT_MS=2000 "$HELPER" commit "$R" seed 1 2>&1) || fail "commit over a dead writer's branch lock: $out"
    echo "$out" | grep -q '^repaired: removed .*refs/heads/main.lock, empty for' || fail "the removal not said: $out"
    [ "$(git -C "$R" log -1 --format=%s main)" = "seed: revision 1" ] || fail "git does not see the commit"
    for i in $(seq 1 $n); do
        "$HELPER" commit "$R" k$((i % 2)) 0 >/dev/null 2>&1 &
        pid=$!
        sleep 0.0$((RANDOM % 9 + 1))
        kill -9 $pid
        wait $pid 2>/dev/null
        before=$(git -C "$R" rev-list --count main)
        out=$(VRAMSHEET_RECORDS_WAIT_MS=2000 "$HELPER" commit "$R" after 1 2>&1) || { fail "commit after kill $i: $out"; continue; }
        [ "$(git -C "$R" rev-list --count main)" = $((before + 1)) ] || fail "kill $i: the next commit is not on the branch"
        echo "$out" | grep -q '^repaired: removed .*refs/heads/main.lock' && removed=$((removed + 1))
    done
    [ ! -e "$R/.git/refs/heads/main.lock" ] || fail "a branch lock left after the loop"
    fsck_clean "$R"
    ok "kill -9 x $n: every next commit went through ($removed found the branch lock of the killed writer and removed it)"
    # a git command holding the branch's lock (a prepared transaction) is respected
    local tip
    tip=$(git -C "$R" rev-parse main)
    mkfifo "$T/tx"
    git -C "$R" update-ref --stdin <"$T/tx" >"$T/tx.out" 2>&1 &
    pid=$!
    exec 7>"$T/tx"
    printf 'start\nupdate refs/heads/main %s %s\nprepare\n' "$(git -C "$R" rev-parse main~1)" "$tip" >&7
    for _ in $(seq 1 200); do grep -q 'prepare: ok' "$T/tx.out" && break; sleep 0.01; done
    grep -q 'prepare: ok' "$T/tx.out" || fail "git update-ref did not prepare: $(cat "$T/tx.out")"
    out=$(VRAMSHEET_RECORDS_WAIT_MS=600 "$HELPER" commit "$R" after 1 2>&1) && fail "committed over a live git transaction's lock"
    echo "$out" | grep -q 'main.lock' || fail "the live lock not named: $out"
    [ -e "$R/.git/refs/heads/main.lock" ] || fail "a live git command's branch lock was removed"
    printf 'abort\n' >&7
    exec 7>&-
    wait $pid
    [ "$(git -C "$R" rev-parse main)" = "$tip" ] || fail "the branch moved under the aborted transaction"
    "$HELPER" commit "$R" after 1 >/dev/null || fail "commit after the git transaction ended"
    fsck_clean "$R"
    ok "a branch lock held by a live git transaction: waited on, named, left to it"
}

push() {
    local B=$T/remote.git N=12
    # Sanitizer builds: libgit2 1.5's local transport leaks the heads it had
    # listed when a ref vanishes while it lists them (store_refs' on_error
    # disposes of the vector, not of its heads: src/libgit2/transports/local.c),
    # which racing pushers hit now and then, on connecting and on the reconnect
    # that ends a local push. Only those call paths are suppressed (full
    # unwinding, so that the frame is seen); our own libgit2 objects are still
    # checked.
    printf 'leak:git_remote_connect_ext\nleak:git_remote_upload\n' >"$T/lsan.supp"
    export LSAN_OPTIONS="suppressions=$T/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    export ASAN_OPTIONS="fast_unwind_on_malloc=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
    git init -q --bare -b main "$B"
    "$HELPER" commit "$T/pa" pa 1 >/dev/null || fail "seed a"
    "$HELPER" pushloop "$T/pa" "$B" pa 1 >/dev/null || fail "first push"
    "$HELPER" pull "$T/pb" "$B" || fail "pull b"
    "$HELPER" pushloop "$T/pa" "$B" pa $N >"$T/pa.out" 2>"$T/pa.err" &
    local p1=$!
    "$HELPER" pushloop "$T/pb" "file://$B" pb $N >"$T/pb.out" 2>"$T/pb.err" &
    local p2=$!
    wait $p1 || fail "pusher a: $(cat "$T/pa.err")"
    wait $p2 || fail "pusher b: $(cat "$T/pb.err")"
    [ "$(cat "$T/pa.out" "$T/pb.out" | wc -l)" = $((2 * N)) ] || fail "pushers reported $(cat "$T/pa.out" "$T/pb.out" | wc -l) pushes"
    git -C "$B" rev-list main | sort >"$T/remote"
    for c in $(cat "$T/pa.out" "$T/pb.out"); do
        grep -q "^$c$" "$T/remote" || fail "commit $c reported pushed but not on the remote"
    done
    git -C "$B" show main:sheets/pa/sheet.json | grep -q "\"n\": $N," || fail "pa last on remote"
    git -C "$B" show main:sheets/pb/sheet.json | grep -q "\"n\": $N," || fail "pb last on remote"
    fsck_clean "$B"
    # pushers released at the same instant, 10 rounds: the window where both read
    # the same remote tip is what loses commits with an unchecked ref update
    local round
    for round in $(seq 1 10); do
        rm -f "$T/go" "$T/pa.ready" "$T/pb.ready"
        "$HELPER" pushonce "$T/pa" "$B" pa "$T/go" >>"$T/pa.out" 2>"$T/pa.err" &
        p1=$!
        "$HELPER" pushonce "$T/pb" "$B" pb "$T/go" >>"$T/pb.out" 2>"$T/pb.err" &
        p2=$!
        for _ in $(seq 1 500); do [ -f "$T/pa.ready" ] && [ -f "$T/pb.ready" ] && break; sleep 0.01; done
        touch "$T/go"
        wait $p1 || fail "round $round pusher a: $(cat "$T/pa.err")"
        wait $p2 || fail "round $round pusher b: $(cat "$T/pb.err")"
    done
    git -C "$B" rev-list main | sort >"$T/remote"
    for c in $(cat "$T/pa.out" "$T/pb.out"); do
        grep -q "^$c$" "$T/remote" || fail "commit $c reported pushed but not on the remote (released together)"
    done
    [ "$(cat "$T/pa.out" "$T/pb.out" | wc -l)" = $((2 * N + 20)) ] || fail "released pushes reported"
    fsck_clean "$B"
    # with a hook on the remote, pushes go through git receive-pack: a push that
    # loses the race there is merged and pushed again, never taken for a refusal
    printf '#!/bin/sh\ncat >/dev/null\nexit 0\n' >"$B/hooks/pre-receive"
    chmod +x "$B/hooks/pre-receive"
    for round in $(seq 1 6); do
        rm -f "$T/go" "$T/pa.ready" "$T/pb.ready"
        "$HELPER" pushonce "$T/pa" "$B" pa "$T/go" >>"$T/pa.out" 2>"$T/pa.err" &
        p1=$!
        "$HELPER" pushonce "$T/pb" "$B" pb "$T/go" >>"$T/pb.out" 2>"$T/pb.err" &
        p2=$!
        for _ in $(seq 1 500); do [ -f "$T/pa.ready" ] && [ -f "$T/pb.ready" ] && break; sleep 0.01; done
        touch "$T/go"
        wait $p1 || fail "hook round $round pusher a: $(cat "$T/pa.err")"
        wait $p2 || fail "hook round $round pusher b: $(cat "$T/pb.err")"
    done
    git -C "$B" rev-list main | sort >"$T/remote"
    for c in $(cat "$T/pa.out" "$T/pb.out"); do
        grep -q "^$c$" "$T/remote" || fail "commit $c reported pushed but not on the remote (through the hook)"
    done
    [ "$(cat "$T/pa.out" "$T/pb.out" | wc -l)" = $((2 * N + 32)) ] || fail "pushes through the hook reported"
    rm "$B/hooks/pre-receive"
    fsck_clean "$B"
    "$HELPER" pull "$T/pc" "$B" || fail "pull c"
    [ -f "$T/pc/sheets/pa/sheet.json" ] && [ -f "$T/pc/sheets/pb/sheet.json" ] || fail "pull c files"
    [ -z "$(git -C "$T/pc" status --porcelain)" ] || fail "c status not clean"
    "$HELPER" pull "$T/pa" "$B" || fail "pull a"
    [ -z "$(git -C "$T/pa" status --porcelain)" ] || fail "a status not clean after pull"
    ok "two racing pushers x $N: every reported push on the remote; pull clean"
}

case $PART in
concurrent) concurrent ;;
race) race ;;
kill) kill9 ;;
lockloop) lockloop ;;
push) push ;;
all) concurrent; race; kill9; lockloop; push ;;
*) echo "unknown part $PART"; exit 2 ;;
esac
[ $fails = 0 ] || { echo "$fails failure(s)"; exit 1; }
