#!/bin/sh
# feedagg exec plugin in POSIX shell: every *.txt file of a folder is an item.
#
#   - name: notes
#     source: exec
#     command: [Examples/plugins/notes_dir.sh, ./notes]
#
# The id is the file name, the title its first line, the summary its second, the date its
# modification time. One page: the request on stdin is read and ignored (no cursor, no validators).
set -eu
dir=${1:?usage: notes_dir.sh FOLDER}
read -r _request || true
[ -d "$dir" ] || { echo "no folder $dir" >&2; exit 2; }
# JSON string body: backslashes and quotes escaped, tabs and control characters dropped.
esc() { printf '%s' "$1" | tr -d '\000-\010\011\013-\037\177' | sed 's/\\/\\\\/g; s/"/\\"/g'; }
for file in "$dir"/*.txt; do
    [ -f "$file" ] || continue
    name=$(basename "$file")
    title=$(sed -n 1p "$file")
    summary=$(sed -n 2p "$file")
    when=$(date -u -r "$file" +%Y-%m-%dT%H:%M:%SZ)
    printf '{"item": {"id": "%s", "title": "%s", "summary": "%s", "published": "%s"}}\n' \
        "$(esc "$name")" "$(esc "${title:-$name}")" "$(esc "$summary")" "$when"
done
