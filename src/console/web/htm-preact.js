// htm bound to Preact's h, as htm/preact does (its file imports 'preact' by a path that the import
// map would also have to name; binding it here is one line).

import htm from 'htm';
import { h } from 'preact';

export const html = htm.bind(h);
