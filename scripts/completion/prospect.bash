# SPDX-License-Identifier: MIT
# bash completion for prospect: the candidates come from the command tables of the installed
# binary (`prospect __complete INDEX WORDS...`), so they always match its options.
_prospect() {
    local cur=${COMP_WORDS[COMP_CWORD]} line
    local -a words=("${COMP_WORDS[@]}") out=()
    # bash splits "sched:sched_switch" at ':' (COMP_WORDBREAKS): rejoin it for prospect.
    if declare -F _get_comp_words_by_ref >/dev/null; then
        local cword
        _get_comp_words_by_ref -n : -w words -i cword cur
    else
        local cword=$COMP_CWORD
    fi
    while IFS= read -r line; do out+=("$line"); done < <("${words[0]}" __complete "$cword" "${words[@]}" 2>/dev/null)
    if [ "${#out[@]}" -eq 1 ] && [ "${out[0]}" = __files__ ]; then
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        return
    fi
    mapfile -t COMPREPLY < <(compgen -W "${out[*]}" -- "$cur")
    declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
}
complete -F _prospect prospect
