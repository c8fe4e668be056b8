#!/bin/bash
# 00-rxe-up: the Soft-RoCE pair the VM sets up is there and usable: rxe0 on veth0
# (10.99.0.1) and rxe1 on veth1 (10.99.0.2), ports ACTIVE, link layer Ethernet, a RoCE
# v2 GID for each address, and traffic between the addresses routed over the veth pair.
# Checked three ways: `rdma link`, `ibv_devinfo`, sysfs.
# vm-timeout: 60
. "${RBLK_VM_LIB:-$(dirname "$0")/../lib.sh}"
need_cmd rdma iproute2
need_cmd ibv_devinfo ibverbs-utils

links=$(rdma link show) || die "rdma link show failed"
echo "$links"
ips=(10.99.0.1 10.99.0.2)
for i in 0 1; do
	dev=rxe$i net=veth$i ip=${ips[$i]}
	grep -qE "^link $dev/1 state ACTIVE physical_state LINK_UP netdev $net( |$)" <<<"$links" ||
		die "rdma link: $dev/1 is not ACTIVE/LINK_UP on $net"

	info=$(ibv_devinfo -v -d $dev) || die "ibv_devinfo -d $dev failed"
	grep -qE '^\s+state:\s+PORT_ACTIVE' <<<"$info" || die "ibv_devinfo: $dev port not PORT_ACTIVE"
	grep -qE '^\s+link_layer:\s+Ethernet' <<<"$info" || die "ibv_devinfo: $dev link layer not Ethernet"
	grep -qE "GID\[ *[0-9]+\]:\s+::ffff:$ip, RoCE v2" <<<"$info" ||
		die "ibv_devinfo: no RoCE v2 GID for $ip on $dev: $(grep GID <<<"$info")"

	p=/sys/class/infiniband/$dev/ports/1
	[ "$(cat $p/state)" = "4: ACTIVE" ] || die "sysfs: $p/state is '$(cat $p/state)'"
	[ "$(cat $p/link_layer)" = Ethernet ] || die "sysfs: $p/link_layer is '$(cat $p/link_layer)'"
	# ::ffff:a.b.c.d as sysfs spells it
	want=$(IFS=.; set -- $ip; printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$1" "$2" "$3" "$4")
	found=
	# (read, not cat: the table has hundreds of entries and every exec is slow here)
	for g in $p/gids/*; do
		k=${g##*/} v= t= n=
		read -r v 2>/dev/null < "$g"
		[ "$v" = "$want" ] || continue
		read -r t 2>/dev/null < $p/gid_attrs/types/$k
		read -r n 2>/dev/null < $p/gid_attrs/ndevs/$k
		[ "$t" = "RoCE v2" ] && [ "$n" = "$net" ] && found=$k
	done
	[ -n "$found" ] || die "sysfs: no RoCE v2 GID $want on $net in $p/gids"
	log "$dev: ACTIVE, Ethernet over $net, RoCE v2 GID [$found] ::ffff:$ip, $(grep -oE 'active_mtu:\s+[0-9]+' <<<"$info" | tr -s ' \t' ' ')"
done

# The pair behaves like two hosts (policy routing set up by softroce-vm): what is sent
# to 10.99.0.1 leaves from 10.99.0.2 through veth1, and back through veth0.
r=$(ip route get 10.99.0.1) || die "ip route get failed"
grep -q 'dev veth1 .*src 10.99.0.2' <<<"$r" || die "-> 10.99.0.1 is not routed over veth1 from 10.99.0.2: $r"
log "route to 10.99.0.1: $(head -1 <<<"$r")"
r=$(ip route get 10.99.0.2) || die "ip route get failed"
grep -q 'dev veth0 .*src 10.99.0.1' <<<"$r" || die "-> 10.99.0.2 is not routed over veth0 from 10.99.0.1: $r"
log "route to 10.99.0.2: $(head -1 <<<"$r")"
log "rxe0 and rxe1 are up"
