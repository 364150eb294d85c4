import { useEffect } from "react";
import type { Notice } from "../state/workspace";
import { useServices } from "./context";

const INFO_MS = 5000;
const ERROR_MS = 9000;

/** Toasts for edits that failed and things that happened; announced to screen readers. */
export function Notices({ notices }: { notices: readonly Notice[] }) {
  return (
    <ol className="notices" aria-live="polite" aria-label="Notifications">
      {notices.map((notice) => (
        <NoticeItem key={notice.id} notice={notice} />
      ))}
    </ol>
  );
}

function NoticeItem({ notice }: { notice: Notice }) {
  const { workspace } = useServices();
  useEffect(() => {
    const timer = setTimeout(() => { workspace.dismiss(notice.id); }, notice.tone === "error" ? ERROR_MS : INFO_MS);
    return () => { clearTimeout(timer); };
  }, [notice, workspace]);
  return (
    <li className={`notice notice--${notice.tone}`} role={notice.tone === "error" ? "alert" : "status"}>
      <div className="notice__text">
        <p className="notice__title">{notice.title}</p>
        {notice.detail && <p className="notice__detail">{notice.detail}</p>}
      </div>
      <button type="button" className="icon-button" aria-label="Dismiss" onClick={() => { workspace.dismiss(notice.id); }}>
        ×
      </button>
    </li>
  );
}
