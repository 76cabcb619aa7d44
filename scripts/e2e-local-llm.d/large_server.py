"""Writes crates/test-support/data/large-server.json: the 250-tool fake server of the
retrieve tests and of the large-server task set of scripts/e2e-local-llm (issue 20). Realistic
names and descriptions, with near-duplicates (get_user, get_users, get_user_by_email, list_users,
search_users). Run it again after editing; the output is committed."""
import json
import os
# (singular, plural, id param, description noun, extra create params)
R = [
 ("user","users","user_id","user account",["username","email"]),
 ("team","teams","team_id","team of an organization",["name","org"]),
 ("organization","organizations","org","organization",["name"]),
 ("repository","repositories","repo","code repository",["name","private"]),
 ("branch","branches","branch","branch of a repository",["repo","name","from_ref"]),
 ("commit","commits","sha","commit of a repository",["repo","message"]),
 ("issue","issues","issue_number","issue of a repository",["repo","title","body"]),
 ("pull_request","pull_requests","pull_number","pull request of a repository",["repo","title","head","base"]),
 ("release","releases","release_id","release of a repository",["repo","tag","name"]),
 ("label","labels","label","issue label of a repository",["repo","name","color"]),
 ("milestone","milestones","milestone_id","milestone of a repository",["repo","title","due_on"]),
 ("comment","comments","comment_id","comment on an issue or pull request",["repo","issue_number","body"]),
 ("webhook","webhooks","hook_id","webhook of a repository",["repo","url","events"]),
 ("workflow","workflows","workflow_id","CI workflow of a repository",["repo","path"]),
 ("workflow_run","workflow_runs","run_id","run of a CI workflow",["repo","workflow_id","ref"]),
 ("secret","secrets","secret_name","encrypted CI secret",["repo","name","value"]),
 ("deployment","deployments","deployment_id","deployment of an application",["app","environment","ref"]),
 ("environment","environments","environment","deployment environment",["app","name"]),
 ("application","applications","app","hosted application",["name","image"]),
 ("server","servers","server_id","virtual server",["name","region","size"]),
 ("database","databases","database_id","managed database",["name","engine"]),
 ("backup","backups","backup_id","database backup",["database_id"]),
 ("dns_record","dns_records","record_id","DNS record of a domain",["domain","type","value"]),
 ("domain","domains","domain","registered domain",["name"]),
 ("certificate","certificates","certificate_id","TLS certificate",["domain"]),
 ("alert","alerts","alert_id","monitoring alert rule",["metric","threshold"]),
 ("invoice","invoices","invoice_id","customer invoice",["customer_id","amount","currency"]),
 ("customer","customers","customer_id","billing customer",["name","email"]),
 ("payment","payments","payment_id","payment",["invoice_id","amount"]),
 ("subscription","subscriptions","subscription_id","billing subscription",["customer_id","plan"]),
 ("ticket","tickets","ticket_id","support ticket",["subject","requester_email"]),
 ("contact","contacts","contact_id","address-book contact",["name","email","phone"]),
 ("calendar_event","calendar_events","event_id","calendar event",["title","start","end"]),
 ("task","tasks","task_id","to-do task",["title","due_date"]),
 ("document","documents","document_id","shared document",["title","folder_id"]),
 ("folder","folders","folder_id","folder of documents",["name","parent_id"]),
 ("project","projects","project_id","project board",["name"]),
 ("package","packages","package_name","published package",["name","version"]),
 ("gist","gists","gist_id","code snippet (gist)",["description","content"]),
 ("notification","notifications","notification_id","notification of the signed-in user",[]),
]
tools = []
def schema(props, required):
    return {"type": "object", "properties": {p: {"type": "integer" if p.endswith("_number") or p in ("amount","threshold") else ("boolean" if p=="private" else "string")} for p in props}, "required": required}
def add(name, desc, props, required):
    tools.append({"name": name, "description": desc, "input_schema": schema(props, required),
                  "annotations": {"readOnlyHint": name.split("_")[0] in ("get", "list", "search", "count"),
                                  "destructiveHint": name.startswith("delete_")},
                  "behavior": {"kind": "echo"}})
for s, p, key, noun, extra in R:
    an = "an" if noun[0] in "aeiou" else "a"
    add(f"get_{s}", f"Get one {noun} by its id.", [key], [key])
    add(f"list_{p}", f"List {noun}s, newest first, page by page.", ["page", "per_page"], [])
    add(f"search_{p}", f"Search {noun}s by keywords.", ["query"], ["query"])
    add(f"create_{s}", f"Create {an} {noun}.", extra or ["name"], (extra or ["name"])[:1])
    add(f"update_{s}", f"Update fields of {an} {noun}.", [key] + (extra or ["name"]), [key])
    add(f"delete_{s}", f"Delete {an} {noun}. This cannot be undone.", [key], [key])
special = [
 ("get_users", "Get several user accounts at once, by a list of user ids.", ["user_ids"], ["user_ids"]),
 ("get_user_by_email", "Find the user account that has this email address.", ["email"], ["email"]),
 ("get_user_by_username", "Find the user account with this username (login).", ["username"], ["username"]),
 ("merge_pull_request", "Merge an open pull request into its base branch.", ["repo", "pull_number", "method"], ["repo", "pull_number"]),
 ("rerun_workflow_run", "Run a failed CI workflow run again.", ["repo", "run_id"], ["repo", "run_id"]),
 ("rotate_secret", "Replace the value of an encrypted CI secret with a new random one.", ["repo", "secret_name"], ["repo", "secret_name"]),
 ("restart_application", "Restart every container of a hosted application.", ["app"], ["app"]),
 ("get_application_logs", "The latest log lines of a hosted application.", ["app", "lines"], ["app"]),
 ("convert_currency", "Convert an amount of money from one currency to another at today's rate.", ["amount", "from_currency", "to_currency"], ["amount", "from_currency", "to_currency"]),
 ("count_words", "Count the words of a text.", ["text"], ["text"]),
]
for n, d, pr, rq in special:
    add(n, d, pr, rq)
assert len(tools) == 250, len(tools)
names = [t["name"] for t in tools]
assert len(set(names)) == 250
scenario = {"server_name": "big", "tools": tools,
            "capabilities": {"tools": True, "resources": False, "prompts": False, "completions": False, "logging": False}}
json.dump(scenario, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "crates", "test-support", "data", "large-server.json"), "w"), indent=1)
print(len(tools))
