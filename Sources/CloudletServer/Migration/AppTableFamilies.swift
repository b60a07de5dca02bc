/// The tables of an app that a copy from SQLite to PostgreSQL brings over, by family, in the order
/// they are copied (a class's row before its fields'). Left behind: the SQLite text index (PostgreSQL
/// searches `data` itself) and rate limit state (quotas start whole).
enum AppTableFamilies {
    /// Objects (with their ACLs and dates as stored), their classes' schemas (CLPs, indexes) and field types.
    static let objects = [
        CopiedTable("classes", [("class", .text), ("permissions", .text), ("indexes", .text)], key: ["class"]),
        CopiedTable("fields", [("class", .text), ("field", .text), ("type", .text)], key: ["class", "field"]),
        CopiedTable(
            "objects", [("class", .text), ("id", .text), ("created_at", .text), ("updated_at", .text), ("acl", .jsonb), ("data", .jsonb)],
            key: ["class", "id"]),
    ]

    /// The join rows of relation fields (roles' members among them).
    static let relations = [
        CopiedTable(
            "relations", [("owning_class", .text), ("owning_id", .text), ("field", .text), ("related_class", .text), ("related_id", .text)],
            key: ["owning_class", "owning_id", "field", "related_id"])
    ]

    /// Password hashes, sessions (by token hash: logged-in users stay logged in) and email tokens.
    static let accounts = [
        CopiedTable("credentials", [("user_id", .text), ("password_hash", .text)], key: ["user_id"]),
        CopiedTable(
            "sessions",
            [
                ("token_hash", .text), ("object_id", .text), ("user_id", .text), ("installation_id", .text), ("created_with", .text),
                ("created_at", .text), ("updated_at", .text), ("expires_at", .text), ("fields", .text),
            ], key: ["token_hash"]),
        CopiedTable(
            "email_tokens", [("token_hash", .text), ("purpose", .text), ("user_id", .text), ("email", .text), ("expires_at", .text)],
            key: ["token_hash"]),
    ]

    /// Config, the bytes files take, job schedules' progress and the hook run history.
    static let settings = [
        CopiedTable("global_config", [("id", .integer), ("document", .text)], key: ["id"]),
        CopiedTable("file_usage", [("id", .integer), ("bytes", .bigint)], key: ["id"]),
        CopiedTable(
            "job_schedules",
            [
                ("job", .text), ("expression", .text), ("handled_through", .double), ("last_run_at", .double), ("last_status_id", .text),
                ("skipped_runs", .integer),
            ], key: ["job"]),
        CopiedTable(
            "hook_runs",
            [
                ("seq", .bigint), ("hook", .text), ("request_id", .text), ("started_at", .double), ("duration_ms", .double),
                ("outcome", .text), ("error", .text), ("lines", .text), ("dropped_lines", .bigint),
            ], key: ["seq"]),
    ]

    /// What the app still owes: queued after hooks, push deliveries and job runs (in their order),
    /// and push jobs' progress. Copied after the objects, whose `_PushStatus` rows' trigger queues
    /// work of its own that these rows replace.
    static let owed = [
        CopiedTable(
            "push_jobs", [("job_id", .text), ("phase", .text), ("cursor", .text), ("expanded", .boolean), ("count", .integer)], key: ["job_id"]),
        CopiedTable(
            "push_job_counts", [("job_id", .text), ("sent", .boolean), ("device_type", .text), ("reason", .text), ("n", .integer)],
            key: ["job_id", "sent", "device_type", "reason"]),
        CopiedTable(
            "work_queue", [("id", .text), ("kind", .text), ("payload", .text), ("due", .timestamp), ("attempts", .integer), ("lease_owner", .text)],
            key: ["seq"]),
    ]
}
