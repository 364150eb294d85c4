import { describe, expect, it } from "vitest";
import { parseGithubReference } from "./reference";

describe("parseGithubReference", () => {
  it.each([
    ["nf-core/demo@1.0.1", "nf-core/demo", "1.0.1"],
    ["  lab/pipe.line@feature/x  ", "lab/pipe.line", "feature/x"],
    ["https://github.com/nf-core/demo/tree/1.0.1", "nf-core/demo", "1.0.1"],
    ["https://github.com/nf-core/demo/tree/release/v2?tab=readme", "nf-core/demo", "release/v2"],
    ["github.com/nf-core/demo.git@dev", "nf-core/demo", "dev"],
    ["https://github.com/nf-core/demo/commit/04060b4644d68649180db796e89a3db2a466a8d8", "nf-core/demo", "04060b4644d68649180db796e89a3db2a466a8d8"],
    ["https://www.github.com/nf-core/fetchngs/releases/tag/1.12.0", "nf-core/fetchngs", "1.12.0"],
  ])("reads %s", (input, repository, ref) => {
    expect(parseGithubReference(input)).toEqual({ ok: true, repository, ref });
  });

  it.each([
    ["", /paste/],
    ["nf-core/demo", /add the release/],
    ["https://github.com/nf-core/demo", /add the release/],
    ["https://github.com/nf-core/demo/blob/master/main.nf", /point at the repository/],
    ["demo@1.0.1", /OWNER\/REPO@REF/],
    ["-bad/demo@1", /owner/],
    ["nf-core/../x@1", /OWNER\/REPO@REF/],
    ["nf-core/..@1", /repository name/],
    ["nf-core/demo@a..b", /Git ref/],
    ["nf-core/demo@has space", /Git ref/],
    [`nf-core/demo@${"a".repeat(256)}`, /at most 255/],
  ])("refuses %s", (input, reason) => {
    const result = parseGithubReference(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });
});
