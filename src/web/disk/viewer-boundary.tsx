import { Component, type ReactNode } from 'react';

/**
 * Keeps a decoding bug inside the file viewer: the viewer says it cannot
 * show the file and offers its bytes, and the rest of the workbook goes on.
 */
export class ViewerBoundary extends Component<{ children: ReactNode; fallback: ReactNode }, { failed: string | null }> {
  override state = { failed: null as string | null };

  static getDerivedStateFromError(e: unknown): { failed: string } {
    return { failed: e instanceof Error ? e.message : String(e) };
  }

  override render(): ReactNode {
    if (this.state.failed === null) return this.props.children;
    return (
      <div className="viewer-failed">
        <p className="bad small">The workbook could not decode this file ({this.state.failed}). Its bytes:</p>
        {this.props.fallback}
      </div>
    );
  }
}
