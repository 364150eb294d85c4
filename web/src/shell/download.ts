import type { Download } from "../api/types";

/** Hands a file to the browser's downloads, then releases its object URL. */
export function saveDownload(download: Download): void {
  const url = URL.createObjectURL(download.blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = download.filename;
  link.rel = "noopener";
  link.style.display = "none";
  document.body.append(link);
  link.click();
  link.remove();
  // Long enough for the browser to have started reading it.
  setTimeout(() => { URL.revokeObjectURL(url); }, 60_000);
}
