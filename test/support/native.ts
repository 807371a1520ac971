/** Builders of native events for tests. */
export const ev = (type: string, data: unknown, sessionId = 'root', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type,
  sessionId,
  data,
  ...extra,
})
export const turnStart = (turn: number, sessionId = 'root') => ev('turn/start', { turn }, sessionId)
export const turnEnd = (turn: number, reason: unknown, sessionId = 'root') => ev('turn/end', { turn, reason }, sessionId)
export const said = (text: string, usage?: Record<string, number>, extra: Record<string, unknown> = {}, sessionId = 'root') =>
  ev('assistant/message', { turn: 1, step: 1, message: { content: [{ type: 'text', text }] }, ...(usage ? { usage } : {}), ...extra }, sessionId)
export const idle = (sessionId = 'root') => ev('session/status', { status: 'idle' }, sessionId)
export const toolCall = (callId: string, name = 'Bash', sessionId = 'root') => ev('tool/call', { callId, name, arguments: '{}' }, sessionId)
export const started = (parent: string, child: string) => ev('subagent/started', { parentSessionId: parent, childSessionId: child }, parent)
export const finished = (parent: string, child: string, stopReason?: string) =>
  ev('subagent/finished', { parentSessionId: parent, childSessionId: child, ...(stopReason ? { stopReason } : {}) }, parent)

/** A complete answered run of one turn. */
export const answeredRun = (text = 'done') => [turnStart(1), said(text, { inputTokens: 10, outputTokens: 5 }), turnEnd(1, { kind: 'completed' }), idle()]
