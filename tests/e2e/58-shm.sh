#!/bin/sh
# memtrace-read --shm (shmsnoop's job) against tests/progs/memgrowth, which
# makes a System V segment, attaches it twice (read-write, read-only),
# asks its state, detaches, removes it and asks again (which fails), each
# from a function of its own, printing arguments and results: every call
# must appear as shmsnoop prints it, with those arguments and that return
# value, and (--stacks) under the function that made it < run_shm < main.
# mtt-timeout: 300
. "${0%/*}/lib.sh"

if ! load_memtrace; then
	not_ok "load memtrace.ko"
	exit 0
fi
cd /tmp || exit 0
OUT=/tmp/shm.out

memtrace-read --shm --stacks -- memgrowth shm >"$OUT" 2>&1
check_eq "--shm -c: the command's exit status" 0 "$?" || diag "$(cat "$OUT")"
check_match "--shm prints shmsnoop's columns" '^PID +COMM +SYS +RET ARGs$' "$(cat "$OUT")"

id=$(awk '$1 == "SHMGET" { print $5 }' "$OUT")
idx=$(printf '%x' "$id")
# Each call the program made, as shmsnoop prints it (RET in hex, or -errno),
# and the function that made it.
awk -v id="$id" '
$1 == "SHMGET" { print "SHMGET " substr($5, 3) " key: 0x0, size: " $3 ", shmflg: 0x380 (IPC_CREAT|0600)@make_segment" }
$1 == "SHMAT" { f = $4 == "0x1000" ? " (SHM_RDONLY)" : ""
	print "SHMAT " substr($6, 3) " shmid: " id ", shmaddr: 0x0, shmflg: " $4 f "@attach_segment" }
$1 == "SHMDT" { print "SHMDT 0 shmaddr: " $2 "@detach_segment" }
$1 == "SHMCTL" { ret = $8 == 0 ? "0" : "-" $10; buf = $6 == "(nil)" ? "0x0" : $6
	print "SHMCTL " ret " shmid: " id ", cmd: " $4 ", buf: " buf "@control_segment" }
' "$OUT" >/tmp/shm.want
check_eq "memgrowth made 8 shm calls" 8 "$(wc -l </tmp/shm.want)"
i=0
while IFS='@' read -r line fn; do
	i=$((i + 1))
	# The i-th memtrace line of this call, with its stack.
	re=$(printf '%s' "$line" | sed 's/[][().|*+?^$\\]/\\&/g; s/ /  */g')
	got=$(grep -E -c "^[0-9]+ +memgrowth +$re\$" "$OUT")
	if [ "$got" -ge 1 ]; then
		ok "--shm: $line"
	else
		not_ok "--shm: $line" "$(cat "$OUT")"
		continue
	fi
	check_eq "--shm --stacks: ${line%% *} under $fn < run_shm < main" "$fn run_shm main" \
		"$(growth_stack "$OUT" "^[0-9]+ +memgrowth +$re\$" | own_frames memgrowth)"
done </tmp/shm.want
check_match "--shm: the failed shmctl returns -EINVAL" \
	"^[0-9]+ +memgrowth +SHMCTL +-22 shmid: $id, cmd: 2, buf: 0x" "$(cat "$OUT")"
check_match "--shm: nothing lost" '^Lost: 0 events' "$(cat "$OUT")"
check_match "--shm: the segment id is memgrowth's ($idx)" "SHMGET +$idx " "$(cat "$OUT")"

unload_memtrace
