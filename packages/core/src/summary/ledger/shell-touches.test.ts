import { describe, expect, it } from "vitest";
import { shellTouches } from "./shell-touches.js";

describe("shellTouches", () => {
  it("recognizes shell reads and writes from real mini-swe-agent commands", () => {
    const touches = (command: string): string[] =>
      shellTouches(command).map((t) => `${t.kind}:${t.path}`);
    expect(touches("cat /testbed/django/db/migrations/operations/fields.py | head -200")).toEqual([
      "read:/testbed/django/db/migrations/operations/fields.py",
    ]);
    expect(touches("cat /testbed/django/db/models/fields/related.py | sed -n '765,850p'")).toEqual([
      "read:/testbed/django/db/models/fields/related.py",
    ]);
    expect(
      touches("sed -i 's/np\\.Inf/np.inf/g' ./pvlib/singlediode.py ./pvlib/pvsystem.py"),
    ).toEqual(["modified:./pvlib/singlediode.py", "modified:./pvlib/pvsystem.py"]);
    expect(
      touches(
        "cd /testbed && cat > test_rst_issue.py << 'EOF'\nfrom astropy.table import QTable\nprint('x') > other.txt\nEOF\npython test_rst_issue.py 2>&1",
      ),
    ).toEqual(["modified:test_rst_issue.py"]);
    expect(touches('echo "int main() { return 0; }" > /workspace/test.c')).toEqual([
      "modified:/workspace/test.c",
    ]);
    expect(
      touches('grep -r "set_text_map" deps/opentelemetry*/src/ 2>/dev/null | head -10'),
    ).toEqual([]);
    expect(touches("cp ./pvlib/iam.py.backup ./pvlib/iam.py && rm -f scratch.py")).toEqual([
      "modified:./pvlib/iam.py",
      "modified:scratch.py",
    ]);
    expect(touches("patch -p1 < fix_l036_final.patch")).toEqual(["read:fix_l036_final.patch"]);
    expect(touches("git checkout -- src/a.py && git diff -- src/b.py")).toEqual([
      "modified:src/a.py",
      "read:src/b.py",
    ]);
    expect(touches('python -c "print(1)" | tee -a run.log >> all.log')).toEqual([
      "modified:all.log",
      "modified:run.log",
    ]);
  });
});
