/** This area: a ✏️ Placed-differently flow left half-way (src/bot/features/flow-left.ts). */
export const ledgerFlowLeftEn = {
  ledger_flow_left:
    '✏️ Position #{id} was left at leg {n}: the legs you did not answer stay as the message showed them, so it is recorded as {shown}. Change a leg in /positions → ✏️.',
  ledger_flow_left_worst: 'worst case {worst}',
} satisfies Record<string, string>;

export const ledgerFlowLeftRu: Record<keyof typeof ledgerFlowLeftEn, string> = {
  ledger_flow_left:
    '✏️ Позиция #{id} оставлена на исходе {n}: исходы, на которые вы не ответили, остались такими, как в сообщении, и записано {shown}. Изменить исход: /positions → ✏️.',
  ledger_flow_left_worst: 'худший случай {worst}',
};
