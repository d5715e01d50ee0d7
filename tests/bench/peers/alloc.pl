# The realistic allocator-heavy program of scripts/bench-peers.sh: perl
# (Debian's perl uses glibc's malloc) builds a hash of N keys, each holding
# a two-element array, and sorts the keys by value: some 4 malloc+free
# pairs per key, of a few dozen bytes each.
# usage: perl alloc.pl N
use strict;
use warnings;
my $n = shift || 20000;
my %h;
for my $i (1 .. $n) {
	$h{"key$i" x 3} = [$i, "v$i"];
}
my @s = sort { $h{$a}[1] cmp $h{$b}[1] } keys %h;
print scalar(@s), "\n";
