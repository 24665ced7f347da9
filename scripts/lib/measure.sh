# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# scripts/lib/measure.sh — figures from samples, for scripts/bench and the reliability
# items (Tests/reliability). Sourced, not run.

# span START END UNIT DECIMALS: END - START ($EPOCHREALTIME values) in ms or s.
span() { awk -v a="$1" -v b="$2" -v k="$([ "$3" = ms ] && echo 1000 || echo 1)" -v d="$4" 'BEGIN { printf("%." d "f\n", (b - a) * k) }'; }
# The median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# min–max of the numbers on stdin.
spread() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s–%s", lo, hi }'; }
# ratio A B [DECIMALS]: A / B.
ratio() { awk -v a="$1" -v b="$2" -v d="${3:-3}" 'BEGIN { printf "%." d "f", a / b }'; }
