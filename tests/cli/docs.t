#!/usr/bin/perl
# Every command shown in README.md and docs/*.md runs, and prints what the
# page shows. TAP output; GCSIM is set by `make test` (default build/gcsim).
#
# A fenced block is a command block when it is fenced ```sh (each line a
# command, lines joined at a trailing backslash; `# ...` comments allowed)
# or when its first line is "$ COMMAND" (a transcript: each "$ " line a
# command, the lines under it up to the next "$ " its output). The block
# fenced without a language right after a ```sh block, prose between
# allowed, is that block's output when its first line starts with '#'.
# Each line shown as output must be a line of the real output (stdout and
# stderr together), or the start of one (a page may cut columns); blank
# lines and lines with an ellipsis ("...") are skipped. Every command
# must exit 0 (a sh block runs under `sh -e`).
#
# The commands run as from a fresh clone: in a scratch folder holding a
# link to each top-level entry of the repository except the build
# folders, with `gcsim` on PATH and build/gcsim both the binary under
# test, one folder per page, the page's blocks in order (a block may use
# what an earlier one wrote).
#
# An HTML comment on the line before a block (blank lines between
# allowed) changes how it is run:
#   <!-- docs-test: skip REASON -->  not run (a GPU, an RDMA device or
#                                    many minutes needed); REASON is
#                                    printed with the TAP SKIP
#   <!-- docs-test: exit N -->       the block (a sh block's last command,
#                                    each command of a transcript) must
#                                    exit N
# A block fenced without a language whose first line starts with
# "gcsim " or "build/gcsim " fails: fence it ```sh so that it is run.
# GCSIM_DOCS=FILE[,FILE] checks only those pages.
use strict;
use warnings;
use Cwd qw(abs_path getcwd);
use File::Basename qw(dirname);
use File::Temp qw(tempdir);

chdir(dirname(abs_path($0)) . '/../..') or die "chdir: $!";
my $root = getcwd();
my $G = abs_path($ENV{GCSIM} // 'build/gcsim');
my $tmp = tempdir('gcsim-docs-XXXXXX', TMPDIR => 1, CLEANUP => 1);
my $n = 0;
my $fails = 0;

sub ok { my ($good, $name, @diag) = @_;
	$n++;
	print(($good ? 'ok' : 'not ok') . " $n - $name\n");
	print map { "# $_\n" } map { split /\n/ } @diag unless $good;
	$fails++ unless $good;
}

my @docs = ('README.md', sort glob('docs/*.md'));
@docs = split /,/, $ENV{GCSIM_DOCS} if $ENV{GCSIM_DOCS};

# the blocks of a page: {line, lang, lines, marker}
sub blocks { my ($file) = @_;
	open(my $fh, '<', $file) or die "$file: $!";
	my (@b, $cur, $marker, $in);
	while (my $l = <$fh>) {
		chomp $l;
		if ($in) {
			if ($l =~ /^```\s*$/) { push @b, $cur; $in = 0; $marker = undef; next }
			push @{$cur->{lines}}, $l;
			next;
		}
		if ($l =~ /^```\s*(\S*)/) {
			$cur = {line => $., lang => $1, lines => [], marker => $marker};
			$in = 1;
		} elsif ($l =~ /^<!--\s*docs-test:\s*(.*?)\s*-->\s*$/) {
			$marker = $1;
		} elsif ($l =~ /\S/) {
			$marker = undef;
		}
	}
	return @b;
}

# run COMMAND in DIR; its output (stdout and stderr) and exit status
sub run_in { my ($dir, $cmd, $e) = @_;
	my $script = "$tmp/cmd.sh";
	open(my $fh, '>', $script) or die "$script: $!";
	print $fh $cmd, "\n";
	close $fh;
	my $out = `cd '$dir' && timeout 600 sh @{[$e ? '-e ' : '']}'$script' 2>&1`;
	return ($out, $? >> 8);
}

# the shown lines that are not in the output
sub missing { my ($out, @shown) = @_;
	my @o = map { s/\s+$//r } split /\n/, $out;
	for my $s (@shown) {
		$s =~ s/\s+$//;
		next if $s eq '' || index($s, '...') >= 0;
		return $s unless grep { index($_, $s) == 0 } @o;
	}
	return undef;
}

# join lines ending in a backslash
sub joined { my @c;
	for my $l (@_) {
		if (@c && $c[-1] =~ s/\\\s*$//) { $c[-1] .= $l } else { push @c, $l }
	}
	return @c;
}

# check_doc(PAGE, REPORT): run the page's command blocks; REPORT is called
# with (passed, skip reason or undef, name, diagnostics...) for each
sub check_doc { my ($doc, $report) = @_;
	my $w = "$tmp/" . ($doc =~ s{[/.]}{_}gr);
	mkdir $w or die "$w: $!";
	opendir(my $dh, $root) or die "$root: $!";
	for my $e (grep { !/^\./ && !/^build/ } readdir $dh) {
		symlink("$root/$e", "$w/$e") or die "$w/$e: $!";
	}
	closedir $dh;
	mkdir "$w/build";
	symlink($G, "$w/build/gcsim") or die "$w/build/gcsim: $!";
	mkdir "$tmp/bin";
	symlink($G, "$tmp/bin/gcsim") unless -l "$tmp/bin/gcsim";
	local $ENV{PATH} = "$tmp/bin:$ENV{PATH}";
	local $ENV{GCSIM} = $G;

	my @b = blocks($doc);
	for (my $i = 0; $i < @b; $i++) {
		my $b = $b[$i];
		my @l = @{$b->{lines}};
		my $where = "$doc:$b->{line}";
		my $transcript = @l && $l[0] =~ /^\$ /;
		if ($b->{lang} ne 'sh' && !$transcript) {
			$report->(0, undef, "$where: a command block fenced without ```sh", $l[0])
			  if $b->{lang} eq '' && @l && $l[0] =~ m{^(build/)?gcsim };
			next;
		}
		my $m = $b->{marker} // '';
		my $status = $m =~ /^exit\s+(\d+)/ ? $1 : 0;
		# the commands, without their comments ('#' starts a TAP directive)
		my $title = join('; ', map { s/\s+#.*//r =~ s/#/\\#/gr } grep { !/^\s*(#|$)/ }
				  $transcript ? map({ /^\$ (.*)/ ? $1 : () } joined(@l)) : joined(@l));
		if ($m =~ /^skip\s*(.*)/) {
			$report->(1, $1, "$where: $title");
			next;
		}
		if ($transcript) {
			my (@cmds, $cur);
			for my $l (joined(@l)) {
				if ($l =~ /^\$ (.*)/) { $cur = {cmd => $1, shown => []}; push @cmds, $cur }
				else { push @{$cur->{shown}}, $l }
			}
			for my $c (@cmds) {
				my ($out, $rc) = run_in($w, $c->{cmd}, 0);
				my $miss = missing($out, @{$c->{shown}});
				$report->($rc == $status && !defined $miss, undef, "$where: " . ($c->{cmd} =~ s/\s+#.*//r =~ s/#/\\#/gr),
				   "status $rc (expected $status)", defined $miss ? "not in the output: $miss" : (),
				   $rc != $status ? $out : ());
			}
			next;
		}
		my @shown;
		if ($i + 1 < @b && $b[$i + 1]{lang} eq '' && @{$b[$i + 1]{lines}} && $b[$i + 1]{lines}[0] =~ /^#/) {
			@shown = @{$b[++$i]{lines}};
		}
		my ($out, $rc) = run_in($w, join("\n", @l), 1);
		my $miss = missing($out, @shown);
		$report->($rc == $status && !defined $miss, undef, "$where: $title", "status $rc (expected $status)",
		   defined $miss ? "not in the output: $miss" : (), $rc != $status ? $out : ());
	}
}

# The check itself, on a page made here: a stale line under the second
# command of a sh block, or of a transcript, fails; the expected status of
# a refusal passes; a skipped block is not run; a gcsim block fenced
# without ```sh fails.
{
	my $page = "$tmp/selftest.md";
	open(my $fh, '>', $page) or die "$page: $!";
	print $fh <<'PAGE';
```sh
gcsim explain --compare intra --bytes 8
gcsim explain --compare inter --bytes 8
```

```
# intra-node types, 8B per message, platform dgx-h100
3/proxy  GPU RDMA (proxy)                    9.999      0  yes
```

```
$ gcsim explain --compare intra --bytes 8
# intra-node types, 8B per message, platform dgx-h100
$ gcsim explain --compare inter --bytes 8
# inter-node types, 8B per message, platform dgx-a100
```

<!-- docs-test: exit 2 -->
```
$ gcsim explain --path intra:9
```

<!-- docs-test: skip the reason -->
```sh
false
```

```
gcsim explain
```
PAGE
	close $fh;
	my @r;
	check_doc($page, sub { push @r, [@_] });
	my $got = join(' ', map { $_->[1] ? 'skip' : $_->[0] ? 'pass' : 'fail' } @r);
	ok($got eq 'fail pass fail pass skip fail',
	   'the check fails a stale line in a multi-command block, honours exit and skip markers, '
	   . 'and fails a command block fenced without ```sh', "got: $got");
}

for my $doc (@docs) {
	check_doc($doc, sub { my ($good, $skip, $name, @diag) = @_;
		if (defined $skip) { print 'ok ' . ++$n . " - $name # SKIP $skip\n" } else { ok($good, $name, @diag) }
	});
}
print "1..$n\n";
exit($fails ? 1 : 0);
