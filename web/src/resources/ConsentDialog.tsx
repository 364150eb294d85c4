import { useEffect, useRef } from "react";
import { formatBytes } from "../readiness/resolutions";
import type { InstallOffer } from "./offer";
import { formatSignedBytes } from "./offer";

export interface ConsentDialogProps {
  readonly offer: InstallOffer;
  /** Called with the offer shown; the consent sent is derived from it. */
  readonly onConsent: (offer: InstallOffer) => void;
  readonly onClose: () => void;
}

/**
 * Asks before anything is downloaded: what it costs (download, stored size,
 * disk left after install, memory the classifier will need) and what it does
 * to the science (the reviewed effect text), with where it comes from.
 * Install is the only way to consent; closing it consents to nothing.
 */
export function ConsentDialog({ offer, onConsent, onClose }: ConsentDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  // Modal from the start; unmounting removes it (closing it in a cleanup
  // would report a close, and so a refusal, that the user never made).
  useEffect(() => {
    const element = dialog.current;
    if (element && !element.open) element.showModal();
  }, []);
  const { provider } = offer;
  return (
    <dialog
      ref={dialog}
      className="consent"
      aria-labelledby="consent-title"
      data-provider={provider.id}
      onClose={onClose}
    >
      <h2 id="consent-title" className="consent__title">
        Install {provider.title}?
      </h2>
      <p className="consent__release muted">
        Release {provider.release}
        {provider.test_only && <span className="tag tag--test">test only</span>}
        {provider.recommended && <span className="tag tag--recommended">recommended</span>}
      </p>
      <dl className="facts consent__facts">
        <dt>Download</dt>
        <dd data-fact="download" data-bytes={offer.downloadBytes}>
          {formatBytes(offer.downloadBytes)}
        </dd>
        <dt>Stored</dt>
        <dd data-fact="stored" data-bytes={offer.storedBytes}>
          {formatBytes(offer.storedBytes)}
        </dd>
        <dt>Disk left after install</dt>
        <dd data-fact="disk-left" className={offer.fitsDisk === false ? "consent__short" : undefined}>
          {offer.diskLeftAfterBytes === undefined ? "unknown" : formatSignedBytes(offer.diskLeftAfterBytes)}
          {offer.freeDiskBytes !== undefined && <span className="muted"> of {formatBytes(offer.freeDiskBytes)} free</span>}
          {offer.fitsDisk === false && <span className="consent__warning"> — not enough disk</span>}
        </dd>
        <dt>Memory needed</dt>
        <dd data-fact="memory" className={offer.fitsMemory === false ? "consent__short" : undefined}>
          {offer.memoryNeededBytes === undefined ? "not stated by the publisher" : formatBytes(offer.memoryNeededBytes)}
          {offer.machineMemoryBytes !== undefined && <span className="muted"> (this machine has {formatBytes(offer.machineMemoryBytes)})</span>}
          {offer.fitsMemory === false && <span className="consent__warning"> — more than this machine has</span>}
        </dd>
        <dt>Checksum</dt>
        <dd className="mono consent__checksum">{provider.checksum ? `${provider.checksum.algorithm}:${provider.checksum.value}` : "none"}</dd>
        <dt>From</dt>
        <dd className="mono consent__url">{provider.url}</dd>
        <dt>Licence</dt>
        <dd>{provider.licence}</dd>
        <dt>Cite</dt>
        <dd>{provider.citation}</dd>
      </dl>
      <h3 className="consent__effect-title">Scientific effect</h3>
      <p className="consent__effect" data-fact="effect" data-digest={provider.effect_digest}>
        {provider.scientific_effect}
      </p>
      <p className="consent__note muted">
        Somite verifies the checksum while downloading, publishes the database only when it is complete, and you can cancel at any time.
      </p>
      <div className="consent__actions">
        <button type="button" className="button" onClick={onClose}>
          Not now
        </button>
        <button
          type="button"
          className="button button--primary"
          disabled={offer.fitsDisk === false}
          title={offer.fitsDisk === false ? "There is not enough free disk for it" : undefined}
          onClick={() => { onConsent(offer); }}
        >
          Install {formatBytes(offer.downloadBytes)}
        </button>
      </div>
    </dialog>
  );
}
