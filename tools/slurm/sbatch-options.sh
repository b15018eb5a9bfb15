# The sbatch options that selfplay.sh, tables.sh and proof.sh share,
# sourced by them. `sbatch_option OPTION VALUE` appends the option to the
# caller's `sbatch_extra` array and succeeds, or fails for an option that
# is not one of these (the caller's own, or unknown). A bad value ends the
# script through the caller's `usage`.
#
#   --mem SIZE       memory per task (sbatch --mem)
#   --time-limit S   seconds per task (sbatch --time, rounded up to minutes)
#   --account A, --partition P, --qos Q
#   --sbatch ARG     any other sbatch argument (repeatable)
sbatch_option() {
    case "$1" in
        --mem) sbatch_extra+=(--mem="$2") ;;
        --time-limit)
            [[ "$2" =~ ^[0-9]+$ ]] || usage "--time-limit needs seconds"
            sbatch_extra+=(--time="$(( ($2 + 59) / 60 ))") ;;
        --account) sbatch_extra+=(--account="$2") ;;
        --partition) sbatch_extra+=(--partition="$2") ;;
        --qos) sbatch_extra+=(--qos="$2") ;;
        --sbatch) sbatch_extra+=("$2") ;;
        *) return 1 ;;
    esac
}
