#!/usr/bin/env bash
# Plots a training log (the CSV damas train writes) as a PNG: Elo of each generation against
# the one before, with its 95% interval (rejected generations in red), the training and
# held-out losses, and in the title the final match against the compiled-in weights.
# usage: scripts/plot-training.sh LOG.csv [OUT.png]   (default: LOG.png)
set -euo pipefail
log=${1:?usage: scripts/plot-training.sh LOG.csv [OUT.png]}
out=${2:-${log%.csv}.png}
[ -f "$log" ] || { echo "error: $log not found" >&2; exit 1; }
command -v gnuplot >/dev/null || { echo "error: gnuplot is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
[ "$(wc -l <"$log")" -ge 2 ] || { echo "error: $log has no generation yet" >&2; exit 1; }
final=$(sed -n 's/^# final match against/against/p' "$log" | tail -1)
gnuplot <<GNUPLOT
set datafile separator ","
set terminal pngcairo size 900,700 noenhanced
set output "$out"
set multiplot layout 2,1 title "damas training: $log\n${final:-(no final match yet)}"
set key top left
set grid
set offsets 0.25, 0.25, 0, 0
set xtics 1
set format x "%.0f"
set xlabel "generation"
set ylabel "Elo (new - previous)"
plot "$log" using 1:7:8:9 skip 1 with yerrorbars title "Elo, 95% interval" lc rgb "#1f77b4", \
     "$log" using 1:7 skip 1 with lines notitle lc rgb "#1f77b4", \
     "$log" using 1:(\$10 == 0 ? \$7 : 1/0) skip 1 with points pt 7 ps 1.5 lc rgb "#d62728" title "rejected", \
     0 notitle lc rgb "gray"
set ylabel "cross-entropy"
plot "$log" using 1:5 skip 1 with linespoints title "training loss", \
     "$log" using 1:6 skip 1 with linespoints title "held-out loss"
unset multiplot
GNUPLOT
echo "plot: $out"
