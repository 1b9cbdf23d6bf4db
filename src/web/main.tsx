import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import '@xterm/xterm/css/xterm.css';
import './styles.css';
import { App } from './app.js';
import { StoreContext } from './store-context.js';
import { WorldStore } from './world-store.js';

const store = new WorldStore({ seed: 1 });
store.start();
store.openTerminal();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <StoreContext.Provider value={store}>
      <App />
    </StoreContext.Provider>
  </StrictMode>,
);
