#!/bin/sh
# /init of scripts/bench-peers.sh's initramfs (busybox; GUEST ONLY, never
# run it on the host): load the modules of /modules.list (virtio_blk,
# ext4), mount the Debian image /dev/vda (booted with snapshot=on: writes
# are discarded), copy /payload to /opt/memtrace-bench there and
# switch_root into /opt/memtrace-bench/init.sh.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
say() { echo "# BENCHINFO initramfs: $*" >/dev/console; }
fail() {
	say "$*"
	echo "# BENCH-FAILED initramfs" >/dev/console
	sync
	reboot -f
}
while read -r m; do
	insmod "/modules/$m" 2>/dev/null || :	# built in, or loaded already
done </modules.list
i=0
while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -b /dev/vda ] || fail "no /dev/vda; modules: $(cut -d' ' -f1 /proc/modules | tr '\n' ' ')"
mkdir -p /newroot
mount -t ext4 /dev/vda /newroot || fail "cannot mount /dev/vda"
mkdir -p /newroot/opt/memtrace-bench
cp -a /payload/. /newroot/opt/memtrace-bench/ || fail "cannot copy the payload"
umount /proc /sys
mount --move /dev /newroot/dev
exec switch_root /newroot /opt/memtrace-bench/init.sh
