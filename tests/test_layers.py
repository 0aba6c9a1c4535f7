"""Dependencies run one way: no import circle, the lower app never imports the upper one, and
every module imports cleanly in any order in a fresh interpreter."""

import ast
import functools
import random
import subprocess
import sys

from tests.live_server import BASE_DIR

APPS = (
    "elicitation",
    "connections",
    "inbox",
    "notify",
    "playground",
    "mcp_bridge",
    "llm_agents",
    "agui",
    "api",
    "workbench",
)
# Django's documented place for imports that need the app registry.
FUNCTION_IMPORTS_ALLOWED = {
    "playground/apps.py",
    "mcp_bridge/apps.py",
    "llm_agents/apps.py",
    "agui/apps.py",
    "api/apps.py",
    "notify/apps.py",
    "llm_agents/providers.py",  # the model clients: 1.9 s of imports, only when a model is used
    # The MCP SDK and pydantic_ai: 3 of the 5 CPU seconds of every `manage.py` command when
    # Django imported them at start; these modules load at start and import them when used.
    "llm_agents/agent.py",
    "mcp_bridge/agent.py",
    "agui/agent.py",  # ag_ui's pydantic types: a second, only at an AG-UI agent's first turn
    "connections/models.py",
}
# The ASGI entry point composes every app (it sits above them all, like the root URLconf).
ENTRY_POINTS = {"playground.asgi"}


@functools.cache  # parsed once for the module's tests: each reads every source file
def project_modules() -> dict[str, ast.Module]:
    modules = {}
    for app in APPS:
        for path in sorted((BASE_DIR / app).rglob("*.py")):
            relative = path.relative_to(BASE_DIR)
            if "migrations" in relative.parts:
                continue
            name = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
            modules[name] = ast.parse(path.read_text(), filename=str(relative))
    return modules


def imported(tree: ast.Module, *, top_level_only: bool) -> set[str]:
    nodes = tree.body if top_level_only else ast.walk(tree)
    names = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return {name for name in names if name.split(".")[0] in APPS}


def test_the_elicitation_app_never_imports_the_playground():
    upward = [
        (name, target)
        for name, tree in project_modules().items()
        if name.startswith("elicitation")
        for target in imported(tree, top_level_only=False)
        if target.startswith("playground")
    ]
    assert upward == []


def test_the_mcp_bridge_sits_above_the_playground_and_below_the_api():
    upward = [
        (name, target)
        for name, tree in project_modules().items()
        if name.startswith(("elicitation", "playground")) and name not in ENTRY_POINTS
        for target in imported(tree, top_level_only=False)
        if target.startswith("mcp_bridge")
    ]
    assert upward == []


def test_no_app_imports_the_api_above_it():
    upward = [
        (name, target)
        for name, tree in project_modules().items()
        if name.startswith(("elicitation", "playground", "mcp_bridge")) and name not in ENTRY_POINTS
        for target in imported(tree, top_level_only=False)
        if target.startswith("api")
    ]
    assert upward == []


def test_no_app_imports_the_workbench_above_it():
    upward = [
        (name, target)
        for name, tree in project_modules().items()
        if not name.startswith("workbench")
        for target in imported(tree, top_level_only=False)
        if target.startswith("workbench")
    ]
    assert upward == []


def test_imports_sit_at_the_top_of_modules():
    hidden = []
    for name, tree in project_modules().items():
        path = name.replace(".", "/") + ".py"
        if path in FUNCTION_IMPORTS_ALLOWED:
            continue
        if imported(tree, top_level_only=False) != imported(tree, top_level_only=True):
            hidden.append(name)
    assert hidden == []


def test_llm_agents_sit_above_the_mcp_bridge_and_below_the_api():
    below = ("elicitation", "playground", "mcp_bridge")
    wrong_way = [
        (name, target)
        for name, tree in project_modules().items()
        for target in imported(tree, top_level_only=False)
        if (name.startswith(below) and target.startswith("llm_agents"))
        or (name.startswith("llm_agents") and target.startswith("api"))
    ]
    assert wrong_way == []


def test_there_is_no_import_circle():
    modules = project_modules()
    graph = {
        # Every import counts, those inside functions too: importing lazily hides no circle.
        # (A package importing its own submodules is no circle.)
        name: {
            target
            for target in imported(tree, top_level_only=False)
            if target in modules and target != name
        }
        for name, tree in modules.items()
    }
    visiting, done, circles = set(), set(), []

    def visit(name: str, path: list[str]) -> None:
        if name in done:
            return
        if name in visiting:
            circles.append([*path[path.index(name) :], name])
            return
        visiting.add(name)
        for target in sorted(graph[name]):
            visit(target, [*path, name])
        visiting.discard(name)
        done.add(name)

    for name in sorted(graph):
        visit(name, [])
    assert circles == []


def test_every_module_imports_in_any_order_in_a_fresh_interpreter():
    names = sorted(project_modules())
    for seed in (1, 2, 3):
        order = names[:]
        random.Random(seed).shuffle(order)
        script = (
            "import django, importlib, os\n"
            "os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'playground.settings')\n"
            "django.setup()\n"
            f"for name in {order!r}:\n"
            "    importlib.import_module(name)\n"
        )
        done = subprocess.run(
            [sys.executable, "-c", script], cwd=BASE_DIR, capture_output=True, text=True
        )
        assert done.returncode == 0, f"order seed {seed}: {done.stderr[-2000:]}"


def test_the_vault_sits_above_elicitation_and_below_the_playground():
    """The `connection` kind never imports the vault; the vault never imports a runtime."""
    above = ("playground", "mcp_bridge", "llm_agents", "api", "workbench")
    wrong_way = [
        (name, target)
        for name, tree in project_modules().items()
        for target in imported(tree, top_level_only=False)
        if (name.startswith("elicitation") and target.startswith("connections"))
        or (name.startswith("connections") and target.startswith(above))
    ]
    assert wrong_way == []


def test_notifications_sit_above_elicitation_and_below_the_playground():
    """(Below the playground but for its jobs mechanism, which sits below every app.)"""
    above = ("playground", "mcp_bridge", "llm_agents", "api", "workbench")
    wrong_way = [
        (name, target)
        for name, tree in project_modules().items()
        for target in imported(tree, top_level_only=False)
        if (name.startswith("notify") and target.startswith(above) and not in_jobs(target))
        or (name.startswith("elicitation") and target.startswith("notify"))
    ]
    assert wrong_way == []


def in_jobs(name: str) -> bool:
    return name == "playground.jobs" or name.startswith("playground.jobs.")


def test_the_jobs_mechanism_imports_no_app():
    """Every app's work that happens later runs on it: it knows none of them."""
    upward = [
        (name, target)
        for name, tree in project_modules().items()
        if in_jobs(name)
        for target in imported(tree, top_level_only=False)
        if not in_jobs(target)
    ]
    assert upward == []


def test_only_the_jobs_mechanism_claims_rows():
    """One claim for every job: no other module locks rows skipping the locked ones."""
    claiming = [
        name
        for name, tree in project_modules().items()
        if not in_jobs(name)
        for node in ast.walk(tree)
        if isinstance(node, ast.keyword) and node.arg == "skip_locked"
    ]
    assert claiming == []


def test_the_inbox_sits_above_elicitation_and_below_the_playground():
    wrong_way = [
        (name, target)
        for name, tree in project_modules().items()
        for target in imported(tree, top_level_only=False)
        if (name.startswith("elicitation") and target.startswith("inbox"))
        or (name.startswith("inbox") and target.startswith(("playground", "api", "mcp_bridge")))
    ]
    assert wrong_way == []


def test_agui_agents_sit_above_llm_agents_and_below_the_api():
    below = ("elicitation", "playground", "mcp_bridge", "llm_agents", "connections", "inbox")
    wrong_way = [
        (name, target)
        for name, tree in project_modules().items()
        for target in imported(tree, top_level_only=False)
        if (name.startswith(below) and target.startswith("agui"))
        or (name.startswith("agui") and target.startswith(("api", "workbench")))
    ]
    assert wrong_way == []
