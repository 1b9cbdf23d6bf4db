import { Component, Suspense, type ReactNode } from 'react';

/**
 * A part of the page whose code loads after the page (a React.lazy
 * component inside): `loading` shows meanwhile; should its code fail to
 * arrive (the page went offline before it was cached) or fail to draw,
 * the part says so in place and the rest of the workbook goes on.
 */
export function LaterPart({ what, loading, children }: { what: string; loading: ReactNode; children: ReactNode }) {
  return (
    <PartBoundary what={what}>
      <Suspense fallback={loading}>{children}</Suspense>
    </PartBoundary>
  );
}

class PartBoundary extends Component<{ what: string; children: ReactNode }, { failed: string | null }> {
  override state = { failed: null as string | null };

  static getDerivedStateFromError(e: unknown): { failed: string } {
    return { failed: e instanceof Error ? e.message : String(e) };
  }

  override render(): ReactNode {
    if (this.state.failed === null) return this.props.children;
    return (
      <p className="bad small later-part-failed" role="alert">
        {`${this.props.what} could not be loaded (${this.state.failed}). Your work is saved: reload the page to try again.`}
      </p>
    );
  }
}
