# Shared helpers for the misbehaving test drivers (POSIX sh, builtins only).
# Requests arrive one per line with sorted keys: {"id":N,"method":"NAME","params":{...}}.

# Reads the next request into $line, $id, $method and $action (perform only); returns 1 at end of input.
read_request() {
    IFS= read -r line || return 1
    id=${line#'{"id":'}
    id=${id%%,*}
    method=${line#*'"method":"'}
    method=${method%%'"'*}
    action=
    case $method in
    perform)
        action=${line#*'"action":"'}
        action=${action%%'"'*}
        ;;
    esac
    return 0
}

# Answers initialize with environment $1 and the JSON array of actions $2.
answer_initialize() {
    printf '{"id":%s,"result":{"protocolVersion":1,"environment":"%s","actions":%s,"device":"test device","os":"test os"}}\n' \
        "$id" "$1" "$2"
}

# Answers with an empty result (reset, shutdown).
answer_empty() {
    printf '{"id":%s,"result":{}}\n' "$id"
}

# Answers perform with the JSON array of tiers $1; the message names this process.
answer_access() {
    printf '{"id":%s,"result":{"status":"observed","observation":{"access":%s,"message":"pid %s"}}}\n' "$id" "$1" "$$"
}

# The usual answers: launch sees nothing, purchase and relaunch see Pro.
answer_normally() {
    case $method in
    initialize) answer_initialize "${ENVIRONMENT:-misbehaving}" '["launch","relaunch","purchase","observe"]' ;;
    reset | shutdown) answer_empty ;;
    perform)
        case $action in
        launch) answer_access '[]' ;;
        *) answer_access '["pro"]' ;;
        esac
        ;;
    *) printf '{"id":%s,"error":{"code":-32601,"message":"unknown method"}}\n' "$id" ;;
    esac
    [ "$method" = shutdown ] && exit 0
    return 0
}
