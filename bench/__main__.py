"""Run the benchmarks: `python -m bench [NAME ...] [--stack embedded|scaleout|both] [--quick]`.

Each benchmark runs in its own process against a freshly started stack, so one cannot warm
up or slow down the next. At the end, a summary table in Markdown (for bench/README.md).
"""

import argparse
import json
import subprocess
import sys

NAMES = [
    "push_latency",
    "settle_throughput",
    "waiting_cost",
    "replay_render",
    "worker_concurrency",
    "idle_sockets",
    "api_longpoll",
    "mcp_roundtrip",
    "agui_roundtrip",
    "mcp_server_roundtrip",
    "llm_overhead",
    "schedules",
    "inbox",
    "notify",
    "answer_latency",
]


def headline(result: dict) -> tuple[str, str, str]:
    """Return (measured, baseline, ratio or verdict) as table cells."""
    r = result
    match r["bench"]:
        case "push_latency":
            return (
                f"median {r['elicit_median_ms']:.1f} ms, p99 {r['elicit_p99_ms']:.1f} ms",
                f"median {r['baseline_median_ms']:.1f} ms, p99 {r['baseline_p99_ms']:.1f} ms",
                f"{r['ratio_median']:.2f} (p99 {r['ratio_p99']:.2f})",
            )
        case "settle_throughput":
            return (
                f"{r['cycles_per_s']:.1f} cycles/s ({r['cycles']} cycles)",
                f"answer floor {r['floor_cycles_per_s']:.1f} cycles/s (before / after: "
                f"{r['floor_before_after']})",
                f"{r['ratio']:.2f}",
            )
        case "waiting_cost":
            suffix = "_cpu_pct_none"
            processes = [key.removesuffix(suffix) for key in r if key.endswith(suffix)]
            cells = [
                f"{name}: CPU {r[f'{name}_cpu_pct_pending']:.1f} %, RSS "
                f"{r[f'{name}_rss_mb_half']:.0f}→{r[f'{name}_rss_mb_all']:.0f} MB (half→all)"
                for name in processes
            ]
            measured = f"{r['pending_questions']:,} pending: " + "; ".join(cells)
            baseline = "none pending: " + "; ".join(
                f"{name}: CPU {r[f'{name}_cpu_pct_none']:.1f} %, RSS "
                f"{r[f'{name}_rss_mb_none']:.0f} MB"
                for name in processes
            )
            census = (
                f"web tasks {r['web_loop_tasks_none']}→{r['web_loop_tasks_pending']}, "
                f"Turn/Part in memory {r['web_turns_in_memory_pending']}/"
                f"{r['web_parts_in_memory_pending']}"
            )
            return measured, baseline, census
        case "replay_render":
            return (
                f"{r['parts'].split(' vs ')[1]} parts: {r['queries_large']} queries, "
                f"{r['page_ms_large']:.0f} ms",
                f"{r['parts'].split(' vs ')[0]} parts: {r['queries_small']} queries, "
                f"{r['page_ms_small']:.0f} ms",
                f"{r['ms_per_part']:.2f} ms per part",
            )
        case "worker_concurrency":
            return (
                f"{r['conversations']} turns of a 1 s step: {r['wall_s']:.1f} s",
                f"floor {r['floor_s']:.1f} s at concurrency {r['concurrency']}",
                f"{r['ratio']:.2f}",
            )
        case "idle_sockets":
            top, base = r["open_sockets"], r["levels"][0]
            return (
                f"{top:,} idle tabs: CPU {r[f'cpu_pct_{top}']:.2f} %, "
                f"{r['rss_kb_per_socket']:.0f} KB RSS per tab, page {r[f'page_ms_{top}']:.0f} ms, "
                f"push {r[f'push_ms_{top}']:.1f} ms",
                f"none open: CPU {r[f'cpu_pct_{base}']:.2f} %, page {r[f'page_ms_{base}']:.0f} ms, "
                f"push {r[f'push_ms_{base}']:.1f} ms",
                f"CPU +{r['cpu_pct_added']:.2f} points, page {r['page_ratio']:.2f}, "
                f"push {r['push_ratio']:.2f}",
            )
        case "api_longpoll":
            top = r["waiting"]
            return (
                f"{top:,} long-polls waiting (2 blocks): API call {r[f'api_ms_{top}']:.1f} ms, "
                f"socket connect {r[f'socket_ms_{top}']:.1f} ms",
                f"none waiting (3 blocks, between): API call {r['api_ms_0']:.1f} ms, "
                f"socket connect {r['socket_ms_0']:.1f} ms",
                f"API {r['api_ratio']:.2f}, socket {r['socket_ratio']:.2f}",
            )
        case "mcp_roundtrip":
            cells = {
                key: f"{key.replace('_', ' ')} {r[f'{key}_form_median_ms']:.0f} ms "
                f"(typed message to form {r[f'{key}_submit_median_ms']:.0f} ms; answer to "
                f"result {r[f'{key}_result_median_ms']:.0f} ms)"
                for key in ("stdio_warm", "stdio_cold", "http_warm", "http_cold")
            }
            return (
                "call to form: " + "; ".join(cells.values()),
                "SDK round trip: "
                + "; ".join(
                    f"{key.replace('_', ' ')} {r[f'{key}_sdk_median_ms']:.0f} ms" for key in cells
                )
                + f"; question floor {r['question_floor_median_ms']:.1f} ms",
                ", ".join(f"{key.replace('_', ' ')} {r[f'{key}_ratio']:.2f}" for key in cells),
            )
        case "mcp_server_roundtrip":
            return (
                f"call to form {r['call_to_form_median_ms']:.0f} ms (p99 "
                f"{r['call_to_form_p99_ms']:.0f}), answer to result "
                f"{r['answer_to_result_median_ms']:.0f} ms "
                f"(p99 {r['answer_to_result_p99_ms']:.0f})",
                f"SDK in-memory round trip {r['sdk_median_ms']:.1f} ms; push "
                f"{r['push_median_ms']:.1f} ms; bare /mcp call {r['bare_call_median_ms']:.0f} ms",
                f"to form {r['form_ratio']:.2f}",
            )
        case "agui_roundtrip":
            return (
                f"tool call to form {r['emit_to_form_median_ms']:.0f} ms, answer to the "
                f"agent's request {r['answer_to_agent_median_ms']:.0f} ms (whole: message to "
                f"form {r['message_to_form_median_ms']:.0f} ms, answer to reply "
                f"{r['answer_to_reply_median_ms']:.0f} ms)",
                f"bare runs {r['emit_to_form_bare_run_median_ms']:.0f} ms and "
                f"{r['answer_to_agent_bare_run_median_ms']:.0f} ms; "
                f"push {r['push_median_ms']:.1f} ms; answer floor "
                f"{r['answer_floor_median_ms']:.1f} ms",
                f"to form {r['emit_to_form_ratio']:.2f}, to agent {r['answer_to_agent_ratio']:.2f}",
            )
        case "llm_overhead":
            return (
                f"{r['turns']} ask-and-reply turns, model {r['model_ms']:.0f} ms: overhead per "
                f"request {r['overhead_per_request_median_ms']:.0f} ms (request → form "
                f"{r['request_to_form_median_ms']:.0f}, answer → request "
                f"{r['answer_to_request_median_ms']:.0f}, request → reply "
                f"{r['request_to_reply_median_ms']:.0f}); send → first request "
                f"{r['send_to_request_median_ms']:.0f} ms",
                f"save-and-push {r['baseline_save_and_push_median_ms']:.0f} ms",
                f"overhead {r['overhead_ratio']:.2f}, start {r['start_ratio']:.2f}",
            )
        case "schedules":
            processes = [key.removesuffix("_cpu_pct_none") for key in r if key.endswith("_none")]
            cpu = ", ".join(f"{name} {r[f'{name}_cpu_pct_scheduled']:.2f} %" for name in processes)
            base = ", ".join(f"{name} {r[f'{name}_cpu_pct_none']:.2f} %" for name in processes)
            return (
                f"{r['schedules']:,} schedules: idle CPU {cpu}; slot to run, {r['slots']} "
                f"slots: median {r['delay_many_median_ms']:.0f} ms, "
                f"p99 {r['delay_many_p99_ms']:.0f} ms",
                f"none: idle CPU {base}; {r['slots']} slots with nothing else scheduled: "
                f"median {r['delay_base_median_ms']:.0f} ms, p99 {r['delay_base_p99_ms']:.0f} ms",
                f"CPU +{r['cpu_pct_added']:.2f} points, delay {r['delay_ratio_median']:.2f} "
                f"(p99 {r['delay_ratio_p99']:.2f})",
            )
        case "inbox":
            return (
                f"{r['questions']:,} waiting ({r['people']:,} people, {r['groups']} groups), 10 "
                f"of them mine: page {r['page_queries_large']} queries, {r['page_ms_large']:.0f} "
                f"ms; count {r['count_queries_large']} query, {r['count_ms_large']:.1f} ms",
                f"the same 10 alone: page {r['page_queries_small']} queries, "
                f"{r['page_ms_small']:.0f} ms; count {r['count_queries_small']} query, "
                f"{r['count_ms_small']:.1f} ms",
                f"page {r['page_ratio']:.2f}, count {r['count_ratio']:.2f}",
            )
        case "notify":
            return (
                f"{r['questions']:,} questions for {r['people']:,} people in "
                f"{r['asking_s']:.0f} s: {r['mails']:,} mails (at most "
                f"{r['most_mails_per_person']} a person, {r['questions_mailed_twice']} twice), "
                f"after the grace period median {r['late_median_s']:.1f} s, max "
                f"{r['late_max_s']:.1f} s; {r['cycles_per_s_sending']:.1f} cycles/s while sending",
                f"{r['cycles_per_s_quiet']:.1f} cycles/s with nothing to send (each against the "
                "answer floor of its own run)",
                f"settle ratio {r['settle_ratio_sending']:.2f} vs {r['settle_ratio_quiet']:.2f} "
                f"({r['settle_change']:.2f})",
            )
        case "answer_latency":
            ways = (("one", "one conversation"), ("many", "50 at once"))
            return (
                "; ".join(
                    f"{said}: median {r[f'{way}_median_ms']:.1f} ms, "
                    f"p99 {r[f'{way}_p99_ms']:.1f} ms"
                    for way, said in ways
                ),
                "floor: "
                + "; ".join(
                    f"{said}: median {r[f'{way}_floor_median_ms']:.1f} ms, "
                    f"p99 {r[f'{way}_floor_p99_ms']:.1f} ms"
                    for way, said in ways
                ),
                "; ".join(
                    f"{said} {r[f'{way}_ratio_median']:.2f} (p99 {r[f'{way}_ratio_p99']:.2f})"
                    for way, said in ways
                ),
            )
    return "", "", ""


def table(results: list[dict]) -> str:
    lines = [
        "| benchmark | stack | measured | baseline (same run) | ratio | target | met |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        measured, baseline, ratio = headline(result)
        met = "yes" if result["met"] else "**no**"
        lines.append(
            f"| {result['bench']}{' (quick)' if result['quick'] else ''} | {result['setup']} "
            f"| {measured} | {baseline} | {ratio} | {result['target']} | {met} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"any of {', '.join(NAMES)}")
    parser.add_argument("--stack", choices=["embedded", "scaleout", "both"], default="both")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, shorter idle")
    parser.add_argument("--idle", type=float, help="waiting_cost idle seconds (default 60)")
    args, extra = parser.parse_known_args()
    if unknown := set(args.names) - set(NAMES):
        parser.error(f"no benchmark named {', '.join(sorted(unknown))}")
    stacks = ["embedded", "scaleout"] if args.stack == "both" else [args.stack]
    idle = args.idle or (10 if args.quick else 60)
    results = []
    for name in args.names or NAMES:
        for stack in stacks:
            command = [sys.executable, "-m", f"bench.{name}", "--stack", stack, "--idle", str(idle)]
            command += ["--quick"] * args.quick + extra
            output = subprocess.run(command, capture_output=True, text=True)
            print(output.stdout, end="", flush=True)
            if output.returncode:
                print(output.stderr[-4000:], file=sys.stderr)
                continue
            line = next(line for line in output.stdout.splitlines() if line.startswith("RESULT "))
            results.append(json.loads(line.removeprefix("RESULT ")))
    if results:
        print(f"\n{results[0]['date']}, {results[0]['machine']}\n")
        print(table(results))


if __name__ == "__main__":
    main()
