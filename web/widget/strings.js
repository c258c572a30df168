// The chat widget: text (English, Chinese), server errors in the customer's language, and the
// customer id sent to the server.
// One part of widget.js (see boot.js).
const STRINGS = {
  en: {
    title: 'Customer service', open: 'Chat with us', close: 'Close chat',
    placeholder: 'Type your question…', inputLabel: 'Your message', send: 'Send',
    human: 'Talk to a person', humanWaiting: 'Waiting for a person…',
    welcome: 'Hello! Ask me anything about orders, delivery, returns or payment.',
    connecting: 'Connecting…', online: 'Online', reconnecting: 'Connection lost. Reconnecting…',
    offline: 'Cannot reach the server. Retrying…', unavailable: 'Chat is not available right now.',
    fallback: 'Online (without live connection)',
    waiting: 'We are finding someone to help you. You can keep writing here.',
    taken: (a) => `${a} joined the conversation.`, someone: 'A support agent',
    backToBot: 'You are back with the virtual assistant.',
    closed: 'This conversation was closed.',
    csat: 'How would you rate this conversation?', csatThanks: 'Thank you for your rating!',
    star: (n) => `${n} out of 5`,
    newChat: 'Start a new conversation', helpful: 'Helpful', notHelpful: 'Not helpful',
    thanks: 'Thanks for your feedback.', sources: 'Sources', you: 'You', assistant: 'Assistant',
    agent: 'Agent', noAnswer: 'No answer from the server. Please try again.',
    unread: (n) => `${n} new message${n === 1 ? '' : 's'}`,
    source: { faq: 'FAQ', kb: 'Help centre', cache: 'Help centre', model: 'AI',
              fallback: 'Automatic reply', refused: 'Automatic reply', handoff: 'Handoff' },
    error: (m) => `Something went wrong: ${m}`,
    notSent: (m) => `Not sent: ${m}`, retry: 'Retry', retryLabel: (t) => `Retry sending “${t}”`,
    lost: 'the connection was lost', unreachable: 'cannot reach the server',
    slow: 'the server did not answer in time', unknownError: 'unknown error',
    masked: 'Personal details in your message, such as card numbers or e-mail addresses, were hidden.',
    filtered: 'Part of this answer was withheld.',
    count: (n, max) => `${n.toLocaleString('en-US')} / ${max.toLocaleString('en-US')} characters`,
    cut: (max) => `Your text was cut to ${max.toLocaleString('en-US')} characters, the most one message can hold.`,
  },
  zh: {
    title: '在线客服', open: '联系客服', close: '关闭对话',
    placeholder: '请输入您的问题…', inputLabel: '您的消息', send: '发送',
    human: '转人工客服', humanWaiting: '正在等待人工客服…',
    welcome: '您好！关于订单、配送、退货或支付的问题，都可以问我。',
    connecting: '正在连接…', online: '在线', reconnecting: '连接已断开，正在重新连接…',
    offline: '无法连接服务器，正在重试…', unavailable: '在线客服暂时不可用。', fallback: '在线（无实时连接）',
    waiting: '正在为您转接人工客服，您可以继续留言。',
    taken: (a) => `${a} 已加入对话。`, someone: '客服人员',
    backToBot: '已为您转回智能助手。', closed: '本次对话已结束。',
    csat: '请为本次服务评分：', csatThanks: '感谢您的评价！', star: (n) => `${n} 分（满分 5 分）`,
    newChat: '开始新的对话', helpful: '有帮助', notHelpful: '没有帮助',
    thanks: '感谢您的反馈。', sources: '参考来源', you: '我', assistant: '智能助手',
    agent: '客服', noAnswer: '服务器没有回应，请重试。', unread: (n) => `${n} 条新消息`,
    source: { faq: '常见问题', kb: '帮助中心', cache: '帮助中心', model: 'AI',
              fallback: '自动回复', refused: '自动回复', handoff: '转人工' },
    error: (m) => `出错了：${m}`,
    notSent: (m) => `未发送：${m}`, retry: '重试', retryLabel: (t) => `重新发送“${t}”`,
    lost: '连接已断开', unreachable: '无法连接服务器', slow: '服务器未能及时响应',
    unknownError: '未知错误', masked: '您消息中的个人信息（如银行卡号、电子邮箱）已被隐藏。',
    filtered: '部分回答内容已被隐去。', count: (n, max) => `${n} / ${max} 字`,
    cut: (max) => `内容超过 ${max} 字的上限，超出部分已被截去。`,
    // The server writes its errors in English; these are what a Chinese customer reads instead.
    codes: {
      invalid_api_key: '本网站的客服服务未获授权', rate_limit_exceeded: '发送太频繁，请稍后再试',
      queue_full: '当前咨询人数较多，请稍后再试', deadline_exceeded: '服务器繁忙，未能及时处理，请稍后再试',
      unavailable: '服务暂时不可用，请稍后再试', message_too_long: '消息太长，请分几次发送',
      too_large: '消息太长，请分几次发送', unknown_session: '对话已失效，请开始新的对话',
      invalid_argument: '消息无法处理', cancelled: '服务器正在重启，请稍后再试', internal: '服务器内部错误',
    },
  },
};
const lang = (options.lang || document.documentElement.lang || navigator.language || 'en')
                 .toLowerCase().startsWith('zh') ? 'zh' : 'en';
const T = STRINGS[lang];

// What the customer reads for a server error: the text for its code where this language has
// one (the server's messages are English), the server's own message otherwise.
function serverMessage(message, code) {
  return (code && T.codes?.[code]) || message;
}

// The server names users with 1-64 of [A-Za-z0-9_-] (they are part of session ids): a page's
// customer id such as an e-mail address is sent in that form, never refused.
function userName(id) {
  const name = String(id).replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return /[A-Za-z0-9]/.test(name) ? name : 'web';
}
