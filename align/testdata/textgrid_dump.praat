# Prints the tiers and intervals of a TextGrid; used by export_test.go (TestToolPraat).
form Args
  sentence path
endform
tg = Read from file: path$
n = Get number of tiers
writeInfoLine: "tiers ", n
for i to n
  k = Get number of intervals: i
  name$ = Get tier name: i
  appendInfoLine: "tier ", name$, " ", k
  for j to k
    lab$ = Get label of interval: i, j
    t0 = Get start time of interval: i, j
    t1 = Get end time of interval: i, j
    appendInfoLine: "interval ", i, " ", j, " ", fixed$(t0, 6), " ", fixed$(t1, 6), " [", lab$, "]"
  endfor
endfor
