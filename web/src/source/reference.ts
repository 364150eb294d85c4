/**
 * Reading what a person pastes to start from a GitHub pipeline: a GitHub
 * URL (`https://github.com/OWNER/REPO/tree/REF`, `/commit/SHA`,
 * `/releases/tag/TAG`) or `OWNER/REPO@REF`. A ref is always asked for: the
 * runtime pins the commit it names, and guessing a branch would pin
 * something the person did not choose.
 */

export type GithubReference = { readonly ok: true; readonly repository: string; readonly ref: string } | { readonly ok: false; readonly reason: string };

/** GitHub's rules: an owner is 1–39 letters, digits or inner hyphens; a repository name 1–100 of [A-Za-z0-9._-]. */
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?$/;
const REPOSITORY = /^[A-Za-z0-9._-]{1,100}$/;
/** Refs are Git ref names: no spaces, control characters or `..`; 255 bytes at most. */
const MAX_REF_CHARS = 255;

export function parseGithubReference(input: string): GithubReference {
  const text = input.trim();
  if (text === "") return { ok: false, reason: "paste a GitHub URL or OWNER/REPO@REF" };
  const url = /^(?:https?:\/\/)?(?:www\.)?github\.com\/(.*)$/i.exec(text);
  let owner: string | undefined;
  let name: string | undefined;
  let ref: string | undefined;
  if (url) {
    const [path, atRef] = splitOnce((url[1] ?? "").replace(/[?#].*$/, ""), "@");
    const parts = path.split("/").filter((p) => p !== "");
    [owner, name] = parts;
    const rest = parts.slice(2);
    if (atRef !== undefined) ref = atRef;
    else if ((rest[0] === "tree" || rest[0] === "commit") && rest.length > 1) ref = rest.slice(1).join("/");
    else if (rest[0] === "releases" && rest[1] === "tag" && rest.length > 2) ref = rest.slice(2).join("/");
    else if (rest.length > 0) return { ok: false, reason: "point at the repository, a /tree/REF, a /commit/SHA or a /releases/tag/TAG page" };
  } else {
    const [path, atRef] = splitOnce(text, "@");
    const parts = path.split("/");
    if (parts.length !== 2) return { ok: false, reason: "write OWNER/REPO@REF, e.g. nf-core/demo@1.0.1" };
    [owner, name] = parts;
    ref = atRef;
  }
  name = name?.replace(/\.git$/, "");
  if (!owner || !OWNER.test(owner)) return { ok: false, reason: `\`${owner ?? ""}\` is not a GitHub owner name` };
  if (!name || !REPOSITORY.test(name) || name === "." || name === "..") {
    return { ok: false, reason: `\`${name ?? ""}\` is not a GitHub repository name` };
  }
  if (ref === undefined || ref === "") {
    return { ok: false, reason: "add the release, tag, branch or commit to pin: OWNER/REPO@REF or …/tree/REF" };
  }
  const refProblem = refReason(ref);
  if (refProblem) return { ok: false, reason: refProblem };
  return { ok: true, repository: `${owner}/${name}`, ref };
}

function refReason(ref: string): string | undefined {
  if (ref.length > MAX_REF_CHARS) return `a ref has at most ${String(MAX_REF_CHARS)} characters`;
  // eslint-disable-next-line no-control-regex
  if (/[\s\x00-\x1f\x7f~^:?*[\\]/.test(ref) || ref.includes("..") || ref.startsWith("/") || ref.endsWith("/")) {
    return `\`${ref}\` is not a Git ref name`;
  }
  return undefined;
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const at = text.indexOf(separator);
  return at < 0 ? [text, undefined] : [text.slice(0, at), text.slice(at + 1)];
}
