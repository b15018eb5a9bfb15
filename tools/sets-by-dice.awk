# How much the dice decide a lone-seating match: reads referee records
# (v3, --seating lone) and prints, over the complete sets, the fraction
# whose games were all won from the same seat whoever sat there (the dice
# and start decided; the lone engine then scores exactly par, 1/N), and
# the lone engine's share of wins in all sets and in the other sets.
#
#   awk -f tools/sets-by-dice.awk games.records
BEGIN { FS = "\t" }
{
    delete f
    for (i = 1; i <= NF; i++) { k = index($i, "="); f[substr($i, 1, k - 1)] = substr($i, k + 1) }
    if (f["seating"] != "lone") next
    split(f["engines"], e, ",")
    n = split(f["rules"], r, "=")
    players = r[n] + 0
    s = f["set"]
    games[s]++
    need[s] = players
    seatsWon[s] = seatsWon[s] " " f["seat"]
    if (f["winner"] == e[1]) lone[s]++
}
END {
    for (s in games) {
        if (games[s] != need[s]) continue
        sets++
        wins += lone[s]
        played += games[s]
        split(seatsWon[s], w, " ")
        same = 1
        for (i in w) if (w[i] != w[1]) same = 0
        if (same) { decided++ } else { openWins += lone[s]; openGames += games[s] }
    }
    if (sets == 0) { print "no complete lone sets"; exit 1 }
    printf "sets %d, decided by the dice %.1f%%, lone share %.3f, in the other sets %.3f (%d sets)\n", \
        sets, 100 * decided / sets, wins / played, openGames ? openWins / openGames : 0, sets - decided
}
