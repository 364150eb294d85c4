import { describe, expect, it } from "vitest";
import { ApiError } from "../api/errors";
import { sourceFailure } from "./failures";

describe("sourceFailure", () => {
  it("keeps the runtime's code, message and recovery", () => {
    const error = new ApiError("POST /api/source/nfcore/resolve", 404, "release_not_found", "nf-core/demo has no release 9.9.9", "choose one of 1.0.0, 1.0.1", undefined);
    expect(sourceFailure(error)).toEqual({ code: "release_not_found", title: "nf-core/demo has no release 9.9.9", detail: "choose one of 1.0.0, 1.0.1" });
  });

  it("says when a rate-limited provider allows requests again", () => {
    const error = new ApiError("POST /api/source/github/resolve", 429, "rate_limited", "GitHub's rate limit is spent", "wait, or set GITHUB_TOKEN", {
      reset_at: "2026-12-04T05:00:00Z",
    });
    expect(sourceFailure(error)).toEqual({
      code: "rate_limited",
      title: "GitHub's rate limit is spent",
      detail: "wait, or set GITHUB_TOKEN The provider allows requests again at 2026-12-04 05:00:00 UTC.",
    });
  });
});
