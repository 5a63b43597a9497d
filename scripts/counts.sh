# Sourced by the scripts of scripts/ that take counts (runs, sizes, seeds) as arguments:
#   count SCRIPT NAME VALUE
# exits 1 with a message naming the argument unless VALUE is a whole number of 1 or more
# written without a leading zero. (Bash arithmetic reads "x" as an unset variable, 0, so
# "bench-sim.sh x" ran no run and printed an empty median; and "010" as octal 8.)
count() {
  case $3 in
    '' | *[!0-9]* | 0*)
      echo "$1: $2 must be a whole number >= 1 (without a leading zero), got '$3'" >&2
      exit 1
      ;;
  esac
}
