#!/usr/bin/perl
# Every key `gcsim run` accepts changes what it simulates or is refused
# with the reason. On a small multi-node scenario of each network transport
# (transport.inter none, nccl, ibrc, ibgda and gin on InfiniBand; nccl, ibrc
# and gin on EFA; an allreduce for the two-sided transports, a MoE dispatch of
# one-sided puts for the others, and both for none; pplx-garden's dispatch
# through fabric on EFA), every key `gcsim
# models --keys` lists is set to another valid value, one run per value:
# the run must exit 2 with a message that names the key, or its results
# (gcsim run --results FILE.csv: every point of the algorithm and of
# collective.compare, without the header lines that echo the scenario and
# the command) must differ from the unperturbed run's. Values are tried in
# turn (twice, half, then far enough to bind, up to 10^4 times slower where
# a saturated proxy hides a smaller change; each other choice) until one
# answers; failing that, a value that makes the run refuse the combination
# (one line naming another key) answers too, since it was read. A key
# whose every value leaves the results as they were is accepted and
# ignored, and fails. TAP output; GCSIM is set by `make test`.
# GCSIM_KEYS_ONLY=NAME[,NAME] runs only those scenarios.
use strict;
use warnings;
use File::Basename qw(dirname);
use File::Temp qw(tempdir);

chdir(dirname($0) . '/../..') or die "cd: $!";
my $G = $ENV{GCSIM} // 'build/gcsim';
my $T = tempdir(CLEANUP => 1);

# Keys left out, each with why. Every other key is perturbed.
my %skip = (
	'schema_version' => 'one valid value (1)',
	'name' => 'names the report; it models nothing',
	'description' => 'free text; it models nothing',
	'sim.check' => 'asserts the engine invariants; the results stay the same by design '
	    . '(tests/cli/random_scenarios.t runs with it)',
	'sim.fold' => 'simulates one repeating block of ranks for all; the results stay the same '
	    . 'by design (tests/models/test_fold.c compares both)',
	'sim.solve' => 'chooses how the max-min rates are recomputed; they are the same within '
	    . '1e-9 by design (tests/models/test_net.c compares the solves, sim.check checks the '
	    . 'max-min conditions)',
	'workload' => 'step turns the run into a training step, reported by phase (tests/cli/run.t)',
);

# Free-text keys: values to try, in order.
my %text = (
	'collective.nccl_proto' => ['^LL', 'LL128,Simple', 'LL'],
	# releases whose cost models differ: the tree's Simple hop, ring LL
	'collective.nccl_version' => ['2.20', '2.26', '2.19.1'],
	'sweep.key' => ['collective.iters'],
	'sweep.values' => ['1,2'],
	'sweep.key2' => ['collective.iters'],
	'sweep.values2' => ['1,2'],
	# a GPU's links at half their bandwidth, then a whole node's at a tenth
	'faults.degrade' => ['n0.gpu0=50%', 'n0=10%'],
	# a GPU's links, then a whole node's, slower to cross
	'faults.latency' => ['n0.gpu0=5us', 'n0=1ms'],
	# a NIC's packets lost now and then, then a whole node's often
	'faults.loss' => ['n0.nic0=1e-3', 'n0=0.05'],
	# a NIC that stops as the operation starts, then a whole node
	'faults.down' => ['n0.nic0@0us', 'n0@1us'],
);

# Keys whose effect shows in these small scenarios only with settings
# beside them, tried with each value after the plain values: every fabric
# is one nonblocking leaf for 4 nodes until its leaves are small and
# oversubscribed; IBRC's window binds a small dispatch only when small.
my %with = (
	'topology.fabric.kind' => ['topology.fabric.leaf_nics=2', 'topology.fabric.oversubscription=4'],
	# NVSHMEM IBRC's window of atomics: its queue pairs per PE divide the
	# receive queue, and this small dispatch only fills a small one
	'proxy.rc_per_pe' => ['proxy.srq_depth=256'],
);

# The scenarios: a name and the keys they set (dotted, as --set writes
# them; also the base the perturbations start from). 4 nodes of 2 GPUs:
# groups of 4 GPUs still cross the network.
my @ib = ('topology.preset' => 'dgx-h100', 'topology.nodes' => 4, 'topology.gpus_per_node' => 2);
my @p5 = ('topology.preset' => 'p5', 'topology.nodes' => 4, 'topology.gpus_per_node' => 2);
# a ring (protocol auto picks ll, ll128 and simple over the sizes; NCCL's
# tuner picks ll128 at 64 MiB) and a tree (its network sends overlap, where
# a ring's do not)
my @allreduce = ('collective.op' => 'allreduce', 'collective.algo' => 'ring',
	'collective.compare' => 'tree', 'collective.protocol' => 'auto',
	'collective.sizes' => '4KiB,1MiB,64MiB');
# DeepEP's low-latency dispatch, enough tokens that the routing (seed)
# shows through a proxy
my @dispatch = ('collective.op' => 'dispatch', 'collective.algo' => 'put',
	'collective.sizes' => '7KiB', 'moe.tokens' => 16, 'moe.topk' => 2, 'moe.experts' => 8);
my @scenarios = (
	['ib-none-allreduce', @ib, @allreduce, 'transport.inter' => 'none'],
	['ib-nccl-allreduce', @ib, @allreduce, 'transport.inter' => 'nccl'],
	['ib-none-dispatch', @ib, @dispatch, 'transport.inter' => 'none'],
	['ib-ibrc-dispatch', @ib, @dispatch, 'transport.inter' => 'ibrc'],
	['ib-ibgda-dispatch', @ib, @dispatch, 'transport.inter' => 'ibgda'],
	['ib-gin-dispatch', @ib, @dispatch, 'transport.inter' => 'gin'],
	['p5-nccl-allreduce', @p5, @allreduce, 'transport.inter' => 'nccl'],
	['p5-ibrc-dispatch', @p5, @dispatch, 'transport.inter' => 'ibrc'],
	['p5-gin-dispatch', @p5, @dispatch, 'transport.inter' => 'gin'],
	# pplx-garden's ranges through its own engine
	['p5-fabric-garden', @p5, @dispatch, 'collective.algo' => 'garden', 'transport.inter' => 'fabric'],
);
if ($ENV{GCSIM_KEYS_ONLY}) {
	my %only = map { $_ => 1 } split /,/, $ENV{GCSIM_KEYS_ONLY};
	@scenarios = grep { $only{$_->[0]} } @scenarios;
}

my $n = 0;
my $fails = 0;
sub ok_line {
	my ($pass, $name, @diag) = @_;
	$n++;
	print(($pass ? 'ok' : 'not ok') . " $n - $name\n");
	print map { "# $_\n" } @diag unless $pass;
	$fails++ unless $pass;
}

# Every registered key: type, table default, choices.
my @keys;
{
	open(my $fh, '-|', $G, 'models', '--keys') or die "$G models --keys: $!";
	my $on = 0;
	while (my $l = <$fh>) {
		chomp $l;
		if ($l =~ /^scenario key\s/) {
			$on = 1;
			next;
		}
		next unless $on && $l =~ /^(\S+)\s+(\S+)\s+(\S*)/;
		my %k = (key => $1, type => $2, def => $3);
		$k{def} = '' if $k{type} eq 'text';
		$k{choices} = [split /\|/, $1] if $k{type} eq 'choice' && $l =~ / \{([^{}]+)\}(?: \[.*\])?$/;
		push @keys, \%k;
	}
	close $fh;
}
ok_line(@keys > 100 && (grep { $_->{key} eq 'proxy.request_cost' } @keys),
	'gcsim models --keys lists the scenario keys', scalar(@keys) . ' keys read');

# A quantity as its number and unit ("8.4us" -> 8.4, "us").
sub quantity {
	my ($v) = @_;
	return $v =~ /^([0-9.]+(?:[eE][-+]?[0-9]+)?)\s*(\S*)$/ ? ($1, $2) : (0, '');
}

# The values to try for key k whose value in the scenario is base (the
# table's default when the scenario does not set it, given_base false).
sub candidates {
	my ($k, $base, $given_base) = @_;
	my $t = $k->{type};
	if ($t eq 'text') {
		return @{$text{$k->{key}} // []};
	}
	if ($t eq 'choice') {
		my @c = grep { $_ ne $base } @{$k->{choices}};
		push @c, $base unless $given_base; # a preset may have chosen another
		return @c;
	}
	if ($t eq 'bool') {
		my $b = $base eq 'true';
		return $given_base ? ($b ? 'false' : 'true') : ($b ? ('false', 'true') : ('true', 'false'));
	}
	if ($t eq 'sizes') {
		return ('2MiB', '8B');
	}
	if ($t eq 'integer') {
		my $v = $base =~ /^-?\d+$/ ? $base : 0;
		return $v == 0 ? (1, 2, 4) : (2 * $v, $v + 1, $v > 1 ? ($v - 1, 1) : (), 100 * $v);
	}
	if ($t eq 'number') {
		my $v = $base =~ /^[-+0-9.eE]+$/ ? $base + 0 : 0;
		return $v == 0 ? (0.5, 1) : (2 * $v, $v / 2, $v / 100, $v / 10000);
	}
	if ($t eq 'size' || $t eq 'time' || $t eq 'bandwidth') {
		my ($v, $u) = quantity($base);
		if ($v == 0) {
			return $t eq 'size' ? ('1MiB', '64KiB') : $t eq 'time' ? ('1us', '100ns', '1ms')
			    : ('100GB/s', '10GB/s', '100MB/s');
		}
		# twice and half, then far enough to bind; sizes in whole bytes
		my %unit = (B => 1, KiB => 1024, MiB => 1024**2, GiB => 1024**3, TiB => 1024**4,
			KB => 1e3, kB => 1e3, MB => 1e6, GB => 1e9, TB => 1e12);
		return map { $t eq 'size' ? int($_ * $v * ($unit{$u} // 1)) . 'B' : ($_ * $v) . $u }
		    (2, 0.5, 100, 0.01, 0.0001);
	}
	return ();
}

sub slurp {
	my ($path) = @_;
	open(my $fh, '<', $path) or return undef;
	local $/;
	my $s = <$fh>;
	close $fh;
	return $s;
}

# One run: (exit status, stderr, the result rows or undef).
sub run_gcsim {
	my ($scn, @sets) = @_;
	my $res = "$T/res.csv";
	unlink $res;
	my @cmd = ($G, 'run', $scn, '--results', $res, map { ('--set', $_) } @sets);
	my $pid = fork();
	die "fork: $!" unless defined $pid;
	if ($pid == 0) {
		open(STDOUT, '>', '/dev/null');
		open(STDERR, '>', "$T/err");
		exec(@cmd) or exit 127;
	}
	waitpid($pid, 0);
	my $rc = $? >> 8;
	my $err = slurp("$T/err") // '';
	my $rows = slurp($res);
	$rows = join('', grep { !/^#/ } split /^/, $rows) if defined $rows;
	return ($rc, $err, $rows);
}

for my $s (@scenarios) {
	my ($name, @kv) = @$s;
	my %set = @kv;
	# dotted keys to nested mappings
	my %tree;
	for my $k (sort keys %set) {
		my @p = split /\./, $k;
		my $h = \%tree;
		$h = ($h->{shift @p} //= {}) while @p > 1;
		$h->{$p[0]} = $k eq 'collective.sizes' ? "[$set{$k}]" : $set{$k};
	}
	my $dump;
	$dump = sub {
		my ($h, $ind) = @_;
		my $o = '';
		for my $k (sort keys %$h) {
			$o .= ref $h->{$k} ? "$ind$k:\n" . $dump->($h->{$k}, "$ind  ") : "$ind$k: $h->{$k}\n";
		}
		return $o;
	};
	my $scn = "$T/$name.yaml";
	open(my $fh, '>', $scn) or die "$scn: $!";
	print $fh "schema_version: 1\nname: keys $name\n" . $dump->(\%tree, '');
	close $fh;

	my ($rc0, $err0, $rows0) = run_gcsim($scn);
	my $base_ok = $rc0 == 0 && defined $rows0 && $rows0 =~ /\n./;
	ok_line($base_ok, "$name: the unperturbed scenario runs", "status $rc0: $err0");
	next unless $base_ok;
	for my $k (@keys) {
		my $key = $k->{key};
		if ($skip{$key}) {
			ok_line(1, "$name: $key # SKIP $skip{$key}");
			next;
		}
		if ($k->{type} eq 'choice' && @{$k->{choices} // []} < 2) {
			ok_line(1, "$name: $key # SKIP one valid value");
			next;
		}
		my $given = exists $set{$key};
		my @try = candidates($k, $given ? $set{$key} : $k->{def}, $given);
		my ($pass, $combination, @diag) = (0, 0);
		push @diag, "no value to try for a $k->{type} key" unless @try;
		for my $v (@try) {
			my ($rc, $err, $rows) = run_gcsim($scn, "$key=$v");
			chomp $err;
			# a value the key does not take ("--set KEY=VALUE: ...")
			# is not an answer: the next value is tried
			my $bad_value = index($err, "--set $key=") == 0;
			if ($rc == 2 && !$bad_value && $err =~ /(?:^|[^\w.])\Q$key\E(?:[^\w.]|$)/) {
				$pass = 1;
			} elsif ($rc == 2 && !$bad_value && $err =~ /^[^\n]*?: [a-z_0-9]+(?:\.[a-z_0-9]+)*: [^\n]*$/) {
				# another key refused with this value (the combination is
				# refused, so the value was read): an answer when no value
				# gives a better one
				$combination = 1;
				push @diag, "$key=$v: status $rc: $err";
			} elsif ($rc == 0 && defined $rows && $rows ne $rows0) {
				$pass = 1;
			} elsif ($rc == 0) {
				push @diag, "$key=$v: accepted, and the results are the same";
			} else {
				push @diag, "$key=$v: status $rc: $err";
			}
			last if $pass;
		}
		for my $v ($pass ? () : @{$with{$key} ? \@try : []}) {
			my ($rc, $err, $rows) = run_gcsim($scn, "$key=$v", @{$with{$key}});
			chomp $err;
			if ($rc == 0 && defined $rows && $rows ne $rows0) {
				$pass = 1;
				last;
			}
			push @diag, "$key=$v with @{$with{$key}}: " .
			    ($rc == 0 ? 'accepted, and the results are the same' : "status $rc: $err");
		}
		$pass ||= $combination;
		ok_line($pass, "$name: $key changes the results or is refused", @diag);
	}
}
print "1..$n\n";
exit($fails ? 1 : 0);
