#!/usr/bin/env python3
"""Instructions per hooked save by stage, from callgrind's dumps of a Cloudlet server and its workers.

Usage: [BY_TYPE=1] hook-path-stages.py SAVES DUMP...   (what hook-path-instructions.sh runs)

Each dump is one process's call graph (callgrind's own format). The worker processes' instructions
are the stage "worker". In the server, every function is given a stage by its demangled name (the
patterns below), or none; an instruction belongs to the stage of the nearest function above it
that has one, so a stage's figure holds the runtime, allocation and library code it calls. A
function with no stage called from several is shared out in proportion to what its calls from
each cost (callgrind keeps callers, not whole stacks), and no instruction is counted twice: the
stages add up to the process's total. What no staged function calls (event loops, task
executors, thread start) is the last stage.
"""
import os, re, subprocess, sys

sys.setrecursionlimit(100_000)
from collections import defaultdict

# (stage, pattern on the function's owner: the qualified name of the function it is, or is a
# closure, partial function or specialization of), first match first.
STAGES = [
    ("SQLite: the after-hook queue", r"^(CloudletSQLite\.SQLiteWorkQueue|CloudletRuntime\.(AppWorkService|WorkQueue|WorkHandoff|QueuedWork))"),
    ("hook runs' log", r"^(CloudletSQLite\.SQLiteHookRunStore|CloudletRuntime\.(HookRunObservation|HookStatistics))"),
    ("SQLite write (the object)", r"^CloudletSQLite\."),
    ("hook call, host side", r"^(CloudletIsolation\.|CloudletWire\.|CloudletRuntime\.(Hook|AfterHooks|CallDeadline|DeadlineRace|Outbox|PushJobBuffer))"),
    ("validation", r"^(CloudletRuntime\.|Cloudlet\.(ParseObject|ParseACL|ParseValue|ObjectChanges|FieldOperation))"),
    ("response", r"^(CloudletServer\.(Reply|ParseAPI\.createObject)|Cloudlet\.JSONWriter|NIOHTTP1\.HTTPResponseEncoder|Hummingbird\.(ResponseBody|Response))"),
    ("HTTP and middleware", r"^(NIOHTTP1\.|NIOCore\.ChannelHandlerContext|HummingbirdCore\.|Hummingbird\.|CloudletServer\.|Cloudlet\.JSONParser|c_nio_llhttp)"),
]
OTHER = "event loops, executors, runtime"
WORKER = "worker processes (both hooks)"
# The stages in the order a save meets them.
REPORT_ORDER = ["HTTP and middleware", "validation", "hook call, host side", WORKER, "SQLite write (the object)",
                "SQLite: the after-hook queue", "hook runs' log", "response", OTHER]
DESCRIPTORS = re.compile(
    r"^(\(\d+\) |(await|suspend) resume partial function for |async function pointer to |(implicit )?closure #\d+ .*? in |"
    r"partial apply (forwarder )?for |merged |specialized |outlined [a-z ]+ of |protocol witness for |dispatch thunk of |"
    r"static |@objc |@nonobjc |\(extension in [^)]*\):)")

def parse(path):
    """Self costs, call edges (inclusive costs) and the command line of one callgrind dump."""
    names, self_cost, edges, command = {}, defaultdict(int), defaultdict(int), ""
    current = callee = None
    pending_call = False
    def name(field):
        match = re.match(r"\((\d+)\)(?: (.*))?", field)
        if not match: return field
        if match.group(2) is not None: names[match.group(1)] = match.group(2)
        return names[match.group(1)]
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("cmd:"): command = line[4:].strip()
        elif line.startswith("fn="): current = name(line[3:])
        elif line.startswith("cfn="): callee = name(line[4:])
        elif line.startswith("calls="): pending_call = True
        elif line and (line[0].isdigit() or line[0] in "+-*") and current is not None:
            cost = int(line.split()[-1]) if len(line.split()) > 1 else 0
            if pending_call:
                edges[(current, callee)] += cost
                pending_call = False
            else:
                self_cost[current] += cost
    return self_cost, edges, command

def demangled(symbols):
    output = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(symbols),
                            capture_output=True, text=True).stdout.split("\n")
    return dict(zip(symbols, output)) if len(output) >= len(symbols) else {s: s for s in symbols}

def owner(readable):
    """The function a demangled symbol belongs to: closures, partial functions and specializations stripped."""
    previous = None
    while previous != readable:
        previous = readable
        readable = DESCRIPTORS.sub("", readable)
        for prefix in ("generic specialization <", "function signature specialization <"):
            if readable.startswith(prefix):
                depth, index = 0, len(prefix) - 1
                for index in range(len(prefix) - 1, len(readable)):
                    if readable[index] == "<": depth += 1
                    elif readable[index] == ">" and readable[index - 1] != "-": depth -= 1
                    if depth == 0: break
                readable = readable[index + 1:].removeprefix(" of ")
    return readable

def stage_of(name):
    """The stage of the function `name` (its owner), if it has one."""
    return next((s for s, pattern in STAGES if re.match(pattern, name)), None)

# BY_TYPE=1 groups by the type that runs the instructions instead: SQLite's and GRDB's go to the
# type that called them, as a stage's go to its stage.
TYPE = re.compile(r"^(Cloudlet\w*\.\w+|Hummingbird\w*\.\w+|NIO\w*\.\w+|c_nio_llhttp|HTTPTypes)")

def type_of(name):
    """The module and type of the function `name` (its owner), if the project or its server owns it."""
    match = TYPE.match(name)
    return match.group(1) if match else None

def stages_of(self_cost, edges, classify=stage_of):
    """Every instruction of a process by stage (or what `classify` names): a function's own
    instructions go to its stage, or, if it has none, to its callers' stages in proportion to what
    its calls from each cost."""
    functions = set(self_cost) | {f for edge in edges for f in edge}
    readable = demangled(sorted(functions))
    stage = {}
    for function in functions:
        stage[function] = classify(owner(readable.get(function, function)))
    callers = defaultdict(list)
    for (caller, callee), cost in edges.items():
        if caller != callee and cost > 0: callers[callee].append((caller, cost))
    shares, visiting = {}, set()
    def shares_of(function):  # {stage: fraction} of an instruction run in `function`
        if stage[function]: return {stage[function]: 1.0}
        if function in shares: return shares[function]
        visiting.add(function)
        weighted, weight = defaultdict(float), 0
        for caller, cost in callers[function]:
            if caller in visiting: continue  # a call cycle: its other callers decide
            for name, fraction in shares_of(caller).items(): weighted[name] += cost * fraction
            weight += cost
        visiting.discard(function)
        shares[function] = {name: value / weight for name, value in weighted.items()} if weight else {OTHER: 1.0}
        return shares[function]
    totals = defaultdict(float)
    for function, cost in self_cost.items():
        for name, fraction in shares_of(function).items(): totals[name] += cost * fraction
    return totals

def by_type(saves, dumps):
    """Each process kind's instructions per save by type, the 40 largest."""
    for kind in ("server", "worker"):
        figures = defaultdict(float)
        for dump in dumps:
            self_cost, edges, command = parse(dump)
            if (re.search(r"\sworker(\s|$)", command) is not None) != (kind == "worker"): continue
            for name, cost in stages_of(self_cost, edges, type_of).items(): figures[name] += cost
        if not figures: continue
        print(f"\n{kind + ' processes, by type':<50}{'instructions/save':>18}")
        for name, cost in sorted(figures.items(), key=lambda item: -item[1])[:40]:
            print(f"{name:<50}{cost / saves:>18,.0f}")

def main():
    saves, dumps = int(sys.argv[1]), sys.argv[2:]
    if os.environ.get("BY_TYPE"): return by_type(saves, dumps)
    figures, processes = defaultdict(float), []
    for dump in dumps:
        self_cost, edges, command = parse(dump)
        total = sum(self_cost.values())
        if re.search(r"\sworker(\s|$)", command):
            figures[WORKER] += total
            processes.append(("worker", total))
        else:
            for stage, cost in stages_of(self_cost, edges).items(): figures[stage] += cost
            processes.append(("server", total))
    for kind, total in processes: print(f"{kind} process: {total / saves:,.0f} instructions per save")
    everything = sum(figures.values())
    print(f"\n{'stage':<32}{'instructions/save':>18}{'share':>8}")
    for stage in REPORT_ORDER:
        print(f"{stage:<32}{figures[stage] / saves:>18,.0f}{figures[stage] / everything:>8.1%}")
    print(f"{'all':<32}{everything / saves:>18,.0f}")

main()
