import { it } from 'vitest';
import { loadLesson } from './lesson-files.js';
import { replayLesson } from './replay.js';
it('scratch', async () => {
  const r = await replayLesson(loadLesson(process.env.LESSON!));
  console.log(r.transcript);
});
