/**
 * A front of the door: what the page and the lessons read of a server to
 * show it: INFO's text, its memory figures as INFO prints them, and the
 * type and string form of a stored value.
 *
 *   infoText(server, ['replication']); // "# Replication\r\nrole:master\r\n..."
 *   bytesToHuman(1536);                // "1.50K"
 */
export { bytesToHuman, infoText, usedMemory } from './info.js';
export { stringOf, typeOf, type TypeName, type Value } from '../keyspace/values.js';
