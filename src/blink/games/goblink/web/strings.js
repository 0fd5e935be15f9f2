// Go Blink's words, in English and Spanish: the Go table's, the lobby's Go panel and the Go
// replay frames share them.

import { getLang, pluralCategory } from "/js/i18n.js";

const STR = {
  en: {
    go_blink: "Go Blink",
    classic: "Blink",
    opponents: "Opponents",
    play_go: "Play Go Blink",
    game: "Game",
    you: "You",
    you_asked: "you",
    player_n: "Player {n}",
    your_turn: "Your turn",
    your_opening: "Your opening: lay down matches from the deal, or end it",
    turn_of: "{name}'s turn",
    opening_of: "{name}'s opening",
    time_left: "{s} s",
    draw_pile: "Draw pile: {n}",
    cards_one: "{n} card",
    cards_other: "{n} cards",
    your_hand: "Your hand",
    discard: "Matches laid down",
    no_matches: "No match yet.",
    log: "Log",
    ask: "Ask",
    pick_opp: "Your turn to ask: choose an opponent, then a value you hold.",
    ask_target: "Ask {name} for:",
    ask_for_value: "Values you may ask for",
    lay: "Lay down",
    keys: "Keys:",
    enter: "Enter",
    space: "Space",
    key_opp: "opponent",
    key_move: "move",
    key_ask: "ask",
    key_select: "select a card",
    key_lay: "lay down",
    key_end: "end",
    key_clear: "clear",
    how_to_play: "How to play",
    rules_tabs: "Games",
    rules_title: "How to play Go Blink",
    rules_html: `
<p>Collect cards that share a colour, shape or count, and lay them down as matches. The first to lay down all their cards wins.</p>
<ol>
<li>Each player is dealt four cards; the rest is the draw pile in the middle.</li>
<li><strong>Opening.</strong> In turn, each player may lay down matches from the deal, but must keep at least one card; then ends the opening.</li>
<li><strong>Your turn.</strong> Ask one opponent for a colour, a shape or a count that you hold at least one card of. They pass you <strong>all</strong> their cards of it. If they have none, they say “Go Blink!” and you draw a card from the draw pile.</li>
<li>After the answer you may lay down matches: three or more cards sharing one colour, shape or count. Then end your turn.</li>
<li>If others take your last card you draw one at once. Lay down every card you hold and you win: “I Blunk!”. When the draw pile is empty and a whole round goes by with no match, the fewest cards wins.</li>
</ol>
<h3>At the table</h3>
<p>Click an opponent, then one of the values your cards hold: you ask at once. To lay down, click the cards of a match in your hand, then <em>Lay down</em>; <em>End turn</em> passes the turn.</p>
<p><kbd>1</kbd>–<kbd>5</kbd> choose an opponent; <kbd>←</kbd> <kbd>→</kbd> move along the values (or along your hand); <kbd>Enter</kbd> asks for the value in focus; <kbd>Space</kbd> selects the card in focus; <kbd>L</kbd> lays the selection down; <kbd>E</kbd> ends the opening or the turn; <kbd>Esc</kbd> clears your choices.</p>`,
    bots_title: "The bots",
    rules_link: "How to play Go Blink, and the bots",
    bots_help: "Choose your opponents in the lobby, from the weakest to the strongest:",
    bot_t_random: "Random", bot_t_greedy: "Greedy", bot_t_memory: "Remembering", bot_t_master: "Master",
    bot_d_random: "Picks any legal move at random: asks, lay-downs and ending the turn alike. A gentle start.",
    bot_d_greedy: "Asks for the value it holds most of and lays down the biggest match at once. A fair game.",
    bot_d_memory: "Remembers the asks, the passes and the matches to work out what each opponent holds, asks where a match is likeliest, and holds cards back when a pair is worth more. A hard game.",
    bot_d_master: "Deals the cards it cannot see in many ways that agree with everything it has seen, plays each choice out to the end of the game on them, and takes the one that wins most often. The strongest with three players or more; heads-up, about even with Remembering. It may take a moment over its first move.",
    end_turn: "End turn",
    end_opening: "End opening",
    select_help: "Select three or more cards sharing a colour, shape or count.",
    asked: "{a} asked {b} for {v}: {n}",
    asked_go: "{a} asked {b} for {v}: Go Blink!",
    drew_you: "You drew {card}.",
    drew: "{name} drew a card.",
    emptied: "{name} had no cards left and drew one.",
    laid_one: "{name} laid down a match of {v} ({n} card).",
    laid_other: "{name} laid down a match of {v} ({n} cards).",
    skipped: "{name} had no cards: turn skipped.",
    won: "{names} won! ({why})",
    tie: "Tie between {names} ({why})",
    why_blunk: "I Blunk!",
    why_fewest_cards: "fewest cards",
    why_turn_limit: "turn limit",
    back: "Back to lobby",
    back_tournament: "Back to the tournament bracket",
    record: "Download record",
    replay: "Replay",
    rematch: "Rematch",
    waiting: "Waiting for players… Share this link:",
    spectating: "You are watching.",
    players_away: "The players have left: the turn timer plays for them until they come back.",
    not_found: "There is no game with the code {code}. Check the code, or ask for a new link.",
    error: "Error: {msg}",
    reconnecting: "Reconnecting…",
    refused: "Refused: {msg}",
    err_out_of_turn: "It is not your turn.",
    err_storage_unavailable: "The game is waiting: the server cannot save it right now.",
    err_ask_yourself: "Ask an opponent, not yourself.",
    err_attribute_not_held: "You may only ask for something you hold.",
    err_not_a_match: "That is not a match: three or more cards sharing one colour, shape or count.",
    err_empties_hand_in_opening: "In the opening you must keep at least one card.",
    err_ask_first: "Ask an opponent first.",
    err_already_asked: "You have already asked this turn.",
    err_no_ask_in_opening: "No asking in the opening: lay down matches or end it.",
    err_card_not_in_hand: "That card is not in your hand.",
    err_not_started: "The game has not started yet: wait for the countdown.",
    starts_in: "The game starts in {s} s",
    n_cards_one: "{n} card",
    n_cards_other: "{n} cards",
    color: "Colour", shape: "Shape", count: "Count",
    v_red: "reds", v_orange: "oranges", v_yellow: "yellows", v_green: "greens", v_blue: "blues", v_purple: "purples",
    v_moon: "moons", v_pyramid: "pyramids", v_star: "stars", v_water: "waters", v_flower: "flowers", v_lightning: "lightnings",
    v_1: "ones", v_2: "twos", v_3: "threes", v_4: "fours", v_5: "fives",
  },
  es: {
    go_blink: "Go Blink",
    classic: "Blink",
    opponents: "Rivales",
    play_go: "Jugar a Go Blink",
    game: "Juego",
    you: "Tú",
    you_asked: "ti",
    player_n: "Jugador {n}",
    your_turn: "Tu turno",
    your_opening: "Tu apertura: baja combinaciones del reparto, o termínala",
    turn_of: "Turno de {name}",
    opening_of: "Apertura de {name}",
    time_left: "{s} s",
    draw_pile: "Mazo: {n}",
    cards_one: "{n} carta",
    cards_other: "{n} cartas",
    your_hand: "Tu mano",
    discard: "Combinaciones bajadas",
    no_matches: "Aún no hay combinaciones.",
    log: "Historial",
    ask: "Pedir",
    pick_opp: "Te toca pedir: elige un rival y luego un valor que tengas.",
    ask_target: "Pedir a {name}:",
    ask_for_value: "Valores que puedes pedir",
    lay: "Bajar",
    keys: "Teclas:",
    enter: "Intro",
    space: "Espacio",
    key_opp: "rival",
    key_move: "moverse",
    key_ask: "pedir",
    key_select: "elegir una carta",
    key_lay: "bajar",
    key_end: "terminar",
    key_clear: "borrar",
    how_to_play: "Cómo se juega",
    rules_tabs: "Juegos",
    rules_title: "Cómo se juega a Go Blink",
    rules_html: `
<p>Reúne cartas que compartan color, forma o cantidad y bájalas en combinaciones. Gana quien baje antes todas sus cartas.</p>
<ol>
<li>Cada jugador recibe cuatro cartas; el resto es el mazo, en el centro.</li>
<li><strong>Apertura.</strong> Por turnos, cada jugador puede bajar combinaciones del reparto, pero debe quedarse al menos una carta; después termina la apertura.</li>
<li><strong>Tu turno.</strong> Pide a un rival un color, una forma o una cantidad de la que tengas al menos una carta. Te da <strong>todas</strong> sus cartas de eso. Si no tiene ninguna, dice «¡Go Blink!» y robas una carta del mazo.</li>
<li>Tras la respuesta puedes bajar combinaciones: tres o más cartas con el mismo color, forma o cantidad. Después termina tu turno.</li>
<li>Si otros se llevan tu última carta, robas una en el acto. Baja todas las cartas que tengas y ganas: «¡I Blunk!». Cuando el mazo se acaba y pasa una vuelta entera sin combinaciones, gana quien tenga menos cartas.</li>
</ol>
<h3>En la mesa</h3>
<p>Haz clic en un rival y luego en uno de los valores de tus cartas: pides en el acto. Para bajar, haz clic en las cartas de una combinación de tu mano y luego en <em>Bajar</em>; <em>Terminar turno</em> pasa el turno.</p>
<p><kbd>1</kbd>–<kbd>5</kbd> eligen un rival; <kbd>←</kbd> <kbd>→</kbd> recorren los valores (o tu mano); <kbd>Intro</kbd> pide el valor señalado; <kbd>Espacio</kbd> elige la carta señalada; <kbd>L</kbd> baja las elegidas; <kbd>E</kbd> termina la apertura o el turno; <kbd>Esc</kbd> borra lo elegido.</p>`,
    bots_title: "Los bots",
    rules_link: "Cómo se juega a Go Blink, y los bots",
    bots_help: "Elige tus rivales en el inicio, del más flojo al más fuerte:",
    bot_t_random: "Azar", bot_t_greedy: "Codicioso", bot_t_memory: "Memorión", bot_t_master: "Maestro",
    bot_d_random: "Elige al azar cualquier jugada válida: pedir, bajar o terminar el turno. Para empezar con calma.",
    bot_d_greedy: "Pide el valor del que más cartas tiene y baja enseguida la combinación más grande. Una partida igualada.",
    bot_d_memory: "Recuerda lo que se pide, lo que se pasa y lo que se baja para deducir qué tiene cada rival, pide donde es más probable una combinación y se guarda cartas cuando una pareja vale más. Una partida difícil.",
    bot_d_master: "Reparte de muchas maneras las cartas que no ve, de acuerdo con todo lo que ha visto, juega cada opción hasta el final de la partida en cada reparto y elige la que más veces gana. El más fuerte con tres jugadores o más; a dos, parejo con Memorión. Su primera jugada puede tardar un momento.",
    end_turn: "Terminar turno",
    end_opening: "Terminar apertura",
    select_help: "Elige tres o más cartas que compartan color, forma o cantidad.",
    asked: "{a} pidió {v} a {b}: {n}",
    asked_go: "{a} pidió {v} a {b}: ¡Go Blink!",
    drew_you: "Robaste {card}.",
    drew: "{name} robó una carta.",
    emptied: "{name} se quedó sin cartas y robó una.",
    laid_one: "{name} bajó una combinación de {v} ({n} carta).",
    laid_other: "{name} bajó una combinación de {v} ({n} cartas).",
    skipped: "{name} no tenía cartas: pierde el turno.",
    won: "¡Ganó {names}! ({why})",
    tie: "Empate entre {names} ({why})",
    why_blunk: "¡I Blunk!",
    why_fewest_cards: "menos cartas",
    why_turn_limit: "límite de turnos",
    back: "Volver al inicio",
    back_tournament: "Volver al cuadro del torneo",
    record: "Descargar partida",
    replay: "Repetición",
    rematch: "Revancha",
    waiting: "Esperando jugadores… Comparte este enlace:",
    spectating: "Estás mirando.",
    players_away: "Los jugadores se han ido: el reloj de turno juega por ellos hasta que vuelvan.",
    not_found: "No hay ninguna partida con el código {code}. Revisa el código o pide un enlace nuevo.",
    error: "Error: {msg}",
    reconnecting: "Reconectando…",
    refused: "Rechazada: {msg}",
    err_out_of_turn: "No es tu turno.",
    err_storage_unavailable: "La partida espera: el servidor no puede guardarla ahora.",
    err_ask_yourself: "Pide a un rival, no a ti.",
    err_attribute_not_held: "Solo puedes pedir algo que tengas.",
    err_not_a_match: "Eso no es una combinación: tres o más cartas con el mismo color, forma o cantidad.",
    err_empties_hand_in_opening: "En la apertura debes quedarte al menos una carta.",
    err_ask_first: "Primero pide a un rival.",
    err_already_asked: "Ya has pedido en este turno.",
    err_no_ask_in_opening: "En la apertura no se pide: baja combinaciones o termínala.",
    err_card_not_in_hand: "Esa carta no está en tu mano.",
    err_not_started: "La partida aún no ha empezado: espera la cuenta atrás.",
    starts_in: "La partida empieza en {s} s",
    n_cards_one: "{n} carta",
    n_cards_other: "{n} cartas",
    color: "Color", shape: "Forma", count: "Cantidad",
    v_red: "rojos", v_orange: "naranjas", v_yellow: "amarillos", v_green: "verdes", v_blue: "azules", v_purple: "morados",
    v_moon: "lunas", v_pyramid: "pirámides", v_star: "estrellas", v_water: "aguas", v_flower: "flores", v_lightning: "rayos",
    v_1: "unos", v_2: "doses", v_3: "treses", v_4: "cuatros", v_5: "cincos",
  },
};

/** Whether Go Blink has words for `key` (English, which every language falls back to). */
export function hasGt(key) {
  return Boolean(STR.en[key]);
}

/** Translate a Go Blink string (English and Spanish). */
export function gt(key, vars = {}) {
  const table = STR[getLang()] || STR.en;
  const s = table[key] ?? STR.en[key] ?? key;
  return s.replace(/\{(\w+)\}/g, (_, k) => (k in vars ? String(vars[k]) : `{${k}}`));
}

/** A count in Go Blink's words, as `tCount` in i18n.js: `{base}_{category}` (else
 * `{base}_other`) for `n`'s plural category, with {n} and `vars` filled in. */
export function gtCount(base, n, vars = {}) {
  const key = `${base}_${pluralCategory(n)}`;
  return gt(hasGt(key) ? key : `${base}_other`, { n, ...vars });
}

/** A Go Blink bot's name for people ("greedy": "Greedy" / "Codicioso"), its name when it has
 * no words here. */
export function botTitle(name) {
  return hasGt(`bot_t_${name}`) ? gt(`bot_t_${name}`) : String(name || "");
}
