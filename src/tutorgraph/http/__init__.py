"""The HTTP plumbing the JSON API (`tutorgraph.api`) and the pages (`tutorgraph.web`) share:
request dependencies, the per-request unit of work, cookies, CSRF, problem responses and the
app-wide middleware. It imports neither; `tutorgraph.server` mounts both."""
