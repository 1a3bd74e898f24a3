"""Loss is data: `Note` records one drop, coercion or default, `EXPLAINED` says what each code means, and
`Cx` carries the notes sink and the per-peer quirks through a translation. Nothing here logs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from gateway.core.quirks import Quirks


@dataclass(frozen=True, slots=True)
class Note:
    code: str
    path: str
    detail: str = ""


DEFAULT_QUIRKS = Quirks()

# Every note code, in a sentence for the people who read it (the migration page, `translate`): what the
# gateway did and why. A code used anywhere in gateway/ is listed here once (tests/core/test_notes.py).
EXPLAINED: Mapping[str, str] = {
    # parts and messages
    "data_wrapped": "a v1.0 data part's value that is not an object was wrapped for v0.3 (objects only), "
                    "marked in its metadata so that it is unwrapped on the way back",
    "dropped_unknown_member": "a member the version does not define was dropped",
    "empty_parts_filled": "a message with no parts got one empty text part: v1.0 requires at least one",
    "field_dropped": "a member with no slot in the other version was dropped",
    "filled_required": "a member the other version requires was filled with its empty value",
    "invalid_v03_data_accepted": "a v0.3 data part whose value is not an object was carried as it is",
    "null_part": "a part given as null (or a file part without its file) was read as an empty text part, as "
                 "the SDKs' converters read it (translate only)",
    "part_field_dropped": "a part member (a file's name or media type) with no slot in the other version "
                          "was dropped",
    "role_defaulted": "a message without a (known) role got the default the detail names",
    "rest_bytes_detected": "file bytes were recognised as double base64 (the Python SDKs' v0.3 HTTP+JSON "
                           "convention) from their content",
    "rest_bytes_guessed": "the file-bytes convention of a v0.3 HTTP+JSON peer was guessed (quirk "
                          "rest_double_base64 = \"auto\"): no reply had shown it yet",
    "number_rounded": "an integer beyond 2**53 was sent over gRPC as the nearest double (protobuf's Struct)",
    # tasks, statuses, events, streams
    "state_coerced": "a task state spelled as an enum number or in the other version was read as its name",
    "state_defaulted": "a status without a state got the proto's default, TASK_STATE_UNSPECIFIED",
    "unknown_state": "a task state neither version defines was carried as TASK_STATE_UNSPECIFIED / unknown",
    "timestamp_normalized": "a timestamp was rewritten in RFC 3339 UTC (a naive one taken as UTC)",
    "final_dropped": "the v0.3 `final` flag was dropped: v1.0 ends a stream by closing it",
    "history_length_zero": "historyLength 0 (v1.0: no history; v0.3: no limit) was omitted and the history "
                           "stripped by the gateway",
    "history_truncated": "the history was cut to the historyLength the v1.0 client asked for",
    "task_synthesized": "a v0.3 agent began its stream with an event, not a task: the gateway made the task "
                        "v1.0 clients expect first (of a status update, its status: the update after it keeps no "
                        "message of its own)",
    "empty_event_ignored": "an SSE event without data was skipped",
    "unterminated_event_dropped": "the agent closed its stream inside an event: the partial event was dropped",
    "page_truncated": "a v1.0 list page has no v0.3 equivalent: the gateway pages the v0.3 list itself",
    # requests
    "mixed_dialect_caller": "a caller used v0.3 method names with v1.0-shaped params (fasta2a's client): its call "
                            "was read as v1.0 and answered in the shapes it sent",
    "blocking_settled": "the agent answered a blocking send at once with its task under way (fasta2a): the "
                        "gateway read the task again until it was terminal or interrupted, and answered that",
    "blocking_unsettled": "the agent answered a blocking send with its task under way, and the task did not "
                          "settle within the unary deadline (or could not be read again): its reply went as it was",
    "blocking_defaulted": "a v0.3 request without `blocking` got the value the quirks give it",
    "blocking_ignored": "`blocking: false` was ignored (quirk ignore_blocking_false)",
    "tenant_dropped": "a v1.0 tenant has no v0.3 slot and was dropped",
    # push notifications
    "auth_schemes_truncated": "a push config's several auth schemes became one: v1.0 carries one",
    "push_url_unresolved": "a webhook's host did not resolve at registration; it is checked again before each "
                           "delivery",
    # errors
    "error_code_defaulted": "an HTTP+JSON error naming no A2A error got the internal error code (-32603)",
    "error_code_from_http_status": "an HTTP+JSON error's code was read from its HTTP status",
    "error_code_from_message": "an HTTP+JSON error's code was read from its message",
    "error_data_not_array": "an error's data was not an array of details: it was reshaped into v1.0's",
    "error_data_reshaped": "an error's data was reshaped into the other version's details",
    "error_details_dropped": "error details with no slot in the other version were dropped",
    "error_info_added": "an agent's error without the ErrorInfo v1.0 requires (a bare code) got it, built from "
                        "its code: the reason (e.g. TASK_NOT_FOUND) and the domain a2a-protocol.org",
    "error_info_missing": "a v1.0 error carried no ErrorInfo: its A2A reason was inferred from its code",
    "error_message_defaulted": "an error without a message got its code's standard message",
    "error_reason_unknown": "an ErrorInfo reason neither version defines: the error kept a generic code",
    "error_status_dropped": "an HTTP+JSON error's status member was dropped (the HTTP status carries it)",
    # agent cards
    "agent_dialect_v03": "an interface whose card claims A2A 1.0 sent v0.3-shaped items (langgraph-api, in v1.0's "
                         "enum spellings): they were read as v0.3, and it is spoken to in v0.3 from then on",
    "resent_v03": "an interface whose card claims A2A 1.0 refused a v1.0-shaped file part (langgraph-api reads only "
                  "v0.3 parts): the refused call was sent again in v0.3, as every later call is",
    "api_key_in_read_as_location": "an API key scheme's v0.3 `in` was read as v1.0's `location`",
    "api_key_location_coerced": "an API key location the other version lacks was mapped to the nearest",
    "card_signature_dropped": "card signatures cannot survive a translated card (its bytes change) and were "
                              "dropped",
    "default_value_omitted": "a member spelling out its default value was omitted",
    "duplicate_interface_dropped": "an interface listed twice was dropped",
    "interface_dropped": "an interface beyond the one a v0.3 card can describe was dropped",
    "interface_reordered": "the interfaces were reordered: the preferred one first",
    "no_v03_interface": "the card lists no interface a v0.3 client can use",
    "null_member_dropped": "a member given as null was dropped",
    "oauth_flow_dropped": "an OAuth flow the other version lacks was dropped",
    "oauth_flows_merged": "several OAuth flow entries were merged into the other version's one object",
    "oauth_flows_split": "one OAuth flows object was split into the other version's entries",
    "pkce_required_dropped": "`pkceRequired` has no v0.3 slot and was dropped",
    "preferred_transport_defaulted": "a v0.3 card without preferredTransport: JSONRPC, its default, was used",
    "proto_field_name_read": "a member spelled as the proto field name (snake_case) was read as its JSON name",
    "protocol_version_defaulted": "an interface without a protocol version got its card's",
    "protocol_version_normalized": "a protocol version was normalised (e.g. 0.3.0 as 0.3)",
    "required_member_defaulted": "a member the v0.3 schema requires was given its default value",
    "required_member_absent": "a member its version requires was absent and is left absent in the other "
                              "version, as the SDKs' converters leave it (translate only)",
    "security_requirement_collapsed": "equal security requirements were collapsed into one",
    "security_requirement_expanded": "a security requirement was expanded into the other version's form",
    "security_requirement_removed": "a security requirement naming an unknown scheme was removed",
    "security_scheme_removed": "a security scheme the other version cannot describe was removed",
    "state_transition_history_dropped": "the v0.3 capability stateTransitionHistory has no v1.0 slot",
    "union_member_ignored": "a card carrying both versions' members: the other version's were ignored",
    "union_member_used": "a card carrying the other version's members only: those were used",
    # the agent itself
    "upstream_version_mismatch": "the agent's card claims one protocol version but the agent answers in the "
                                 "other: the gateway corrected it",
}


RestBytes = Literal["double", "single"]


class Cx:
    """Translation context: where notes go, which quirks apply, the upstream tenant, and what one exchange
    learns of its v0.3 REST peer's file-bytes convention (`rest_bytes`; at most one side of a translated
    exchange speaks v0.3 REST, so one slot is unambiguous)."""

    __slots__ = ("lenient", "notes", "quirks", "rest_bytes", "rest_bytes_guess", "rest_bytes_seen", "tenant")

    def __init__(self, notes: list[Note] | None = None, quirks: Quirks = DEFAULT_QUIRKS, tenant: str = "",
                 rest_bytes: RestBytes | None = None, rest_bytes_guess: RestBytes | None = None,
                 lenient: bool = False) -> None:
        self.notes: list[Note] = [] if notes is None else notes
        # what the SDKs' own converters default rather than refuse (a message without role, a null part) is
        # translated with a note instead of refused: offline `translate` only, the gateway stays strict
        self.lenient = lenient
        self.quirks = quirks
        self.tenant = tenant
        self.rest_bytes: RestBytes | None = rest_bytes              # the convention in use (known or guessed)
        self.rest_bytes_guess: RestBytes | None = rest_bytes_guess  # the caller's guess, used if nothing is seen
        self.rest_bytes_seen: RestBytes | None = None               # what the peer's own values showed

    def note(self, code: str, path: str, detail: str = "") -> None:
        self.notes.append(Note(code, path, detail))
