// LOCM's rules core in C++: the draft and construct phases and the battle of games between built-in agents
// (pass, random, greedy), emitting the very events of the Python core (engine/locm/*.py) as their canonical JSON.
//
// It is a port, function for function, of the Python reference: `decide` fills an event buffer from a state
// it never changes (with the decision's look-ahead, `Ahead`, as engine/locm/emit.py), then `evolve` applies
// the buffer. Randomness is java.util.Random (engine/jrandom.py). What a game needs that is decided before its
// first choice (game_created, the card pool, the draft offers) is made by the Python core and handed in; the
// Python side (engine/locm/native.py) decodes the JSON into the same msgspec events and the final state. A game
// from its seed alone (`Opener`, for the log as JSON lines) decides its opening here too, from a game_created
// template the Python core makes once.
//
// Built by setup.py as locm.engine.locm._native (pybind11). Identity with the Python core is what the tests
// check: equal logs, byte for byte, on random seeds and random variants (tests/test_native.py).
//
// One file (past the house's 450 lines) on purpose: setup.py compiles in its sha256 and the Python side refuses a
// build whose source changed, so the whole native core is one source. Its parts, in order: java.util.Random, the
// state and `Game` (emit, drawing, battle, decide, evolve, the agents), the card generator, the events' JSON and
// objects, `play_game`, and the battle environment of N games (`BattleVec`, tests/test_native_vec.py).

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace py = pybind11;

// The behaviour of LOCM's rules this core decides (engine/locm/behaviour.py): it changes with the Python core's,
// only when what a rule does changes. engine/locm/native.py plays a game here only when its game_created names
// this one (an earlier behaviour is the Python core's to decide), and tests/test_behaviour.py checks the two agree.
constexpr int BEHAVIOUR = 1;

#ifndef LOCM_SOURCE_SHA256
#define LOCM_SOURCE_SHA256 "unknown"  // setup.py passes the sha256 of this file (engine/locm/native.py checks it)
#endif

namespace {

// --- java.util.Random (R-RNG) -------------------------------------------------------------------------------

constexpr uint64_t MULT = 0x5DEECE66DULL, ADD = 0xB, MASK48 = (1ULL << 48) - 1;

struct JRandom {
    uint64_t seed;  // the raw 48-bit state
    static JRandom from_seed(int64_t s) { return JRandom{(static_cast<uint64_t>(s) ^ MULT) & MASK48}; }
    int32_t next(int bits) {
        seed = (seed * MULT + ADD) & MASK48;
        return static_cast<int32_t>(static_cast<int64_t>(seed >> (48 - bits)));
    }
};

// Java's int arithmetic in `next_int` relies on wrap-around: `u - r + m < 0` overflows on purpose.
// Done in int64 to be well defined in C++, then compared as Java would see the 32-bit result.
inline int32_t wrap32(int64_t x) { return static_cast<int32_t>(static_cast<uint32_t>(x)); }

int32_t java_next_int(JRandom& rng, int32_t bound) {
    int32_t r = rng.next(31);
    int32_t m = bound - 1;
    if ((bound & m) == 0) return static_cast<int32_t>((static_cast<int64_t>(bound) * r) >> 31);
    // Java: for (int u = r; u - (r = u % bound) + m < 0; u = next(31)); (r taken again from each new draw)
    for (int32_t u = r;; u = rng.next(31)) {
        r = u % bound;
        if (wrap32(static_cast<int64_t>(u) - r + m) >= 0) return r;
    }
}

template <class T> void java_shuffle(JRandom& rng, std::vector<T>& v) {
    for (int i = static_cast<int>(v.size()); i > 1; --i) std::swap(v[i - 1], v[java_next_int(rng, i)]);
}

// --- cards, rules ---------------------------------------------------------------------------------------------

enum : int { CREATURE = 0, GREEN = 1, RED = 2, BLUE = 3 };
enum : int { BREAKTHROUGH = 1, CHARGE = 2, DRAIN = 4, GUARD = 8, LETHAL = 16, WARD = 32 };
enum : int { IDS_12 = 0, IDS_COG2022 = 1, IDS_REVISED = 2 };

struct Card {
    int base_id, type, cost, attack, defense, keywords, my_health, opp_health, draw, area;
};

struct Rules {
    std::vector<int> runes;
    bool draw_runes;        // draw_rule == "runes" (else "damage_draw")
    int damage_draw_step;
    bool empty_lose_rune;   // empty_deck == "lose_rune" (else "ten_damage")
    int turn_limit;
    bool limit_ten_damage;  // turn_limit_penalty == "ten_damage"
    int penalty_damage;
    bool full_hand_stops_draws;
    bool area;
    int id_scheme;
    int hand_limit, start_health, deck_size, lane_size, max_mana, draft_rounds, max_copies;
    bool draft;             // deck_building == "draft"
};

constexpr int CAP_TURNS = 1000, CAP_EVENTS = 50000;
constexpr int OPENING_HAND[2] = {4, 5};

// --- strings of the events ------------------------------------------------------------------------------------

enum Rule : uint8_t { R_ACTIONS, R_DRAFT, R_CONSTRUCT, R_DECK, R_TURN, R_DRAW, R_RUNES, R_DAMAGEDRAW, R_SUMMON,
                      R_ATTACK, R_USE, R_WIN, R_CAP };
const char* const RULE_NAMES[] = {"R-ACTIONS", "R-DRAFT", "R-CONSTRUCT", "R-DECK", "R-TURN", "R-DRAW", "R-RUNES",
                                  "R-DAMAGEDRAW", "R-SUMMON", "R-ATTACK", "R-USE", "R-WIN", "R-CAP"};
enum Word : uint8_t { W_ATTACK, W_BREAKTHROUGH, W_ITEM, W_SUMMON, W_DECK, W_TURN_LIMIT, W_DRAIN, W_RUNE, W_DAMAGE,
                      W_CARD, W_HAND_FULL, W_HEALTH, W_CAP, W_ACTION, W_END_TURN, W_HARD_ERROR };
const char* const WORDS[] = {"attack", "breakthrough", "item", "summon", "deck", "turn_limit", "drain", "rune",
                             "damage", "card", "hand_full", "health", "cap", "action", "end_turn", "hard_error"};

enum Type : uint8_t { CARD_PICKED, DECK_CHOSEN, DECK_ORDERED, ACTION_RECEIVED, TURN_STARTED, TURN_ENDED, CARD_DRAWN,
                      DRAW_LOST, DRAW_BONUS, CREATURE_SUMMONED, CREATURE_ATTACKED, ITEM_USED, CREATURE_MODIFIED,
                      WARD_LOST, CREATURE_DAMAGED, CREATURE_DIED, PLAYER_DAMAGED, PLAYER_HEALED, RUNE_BROKEN,
                      GAME_ENDED, HARD_ERROR };

// How an action_received's text is made (`text_into`): no string is kept for the commands the core makes.
enum Text : uint8_t { TX_PASS, TX_COMMAND, TX_PICK, TX_CHOOSE, TX_STRING };

// One event: its type, seq, cause, rule and up to seven numbers (their meaning by type, see `write_json`),
// a word, two flags, a text and two lists. Plain data (copied, never allocating): the lists are spans of the
// game's `ints` (offset, length), a text is made from the numbers by its kind (an action_received's verb, ids
// and lane in n[1..3], a pick's index in n[1], a deck's choices the list l1) or, for the rare texts read from
// outside (a hard error's), the game's `strs` (indexes s1 the text, s2 the reason).
struct Ev {
    Type type;
    Rule rule;
    Word word;
    bool f1, f2;
    Text tk;
    int seq, cause;
    int n[7];
    int l1, n1, l2, n2;
    int s1, s2;
};

// --- state ----------------------------------------------------------------------------------------------------

struct Unit {
    int id = -1, card = -1, owner = 0, attack = 0, defense = 0, keywords = 0;
    bool can_attack = false, has_attacked = false, touched = false;
    int lane = -1;
};

struct ActionRec {
    int base_id, verb, id, arg;  // verb: 0 SUMMON, 1 ATTACK, 2 USE
};

struct Player {
    int health = 0, max_mana = 0, mana = 0;
    bool bonus = false;
    std::vector<int> runes;
    int next_draw = 1, draw_shown = 1, damage_counter = 0;
    std::vector<int> deck, hand, board;  // unit ids; deck: top card last
    std::vector<ActionRec> actions;
    int turns = 0;
    std::vector<int> picks;
    int last_damage = -1;
};

enum Phase : uint8_t { DRAFT_PHASE, CONSTRUCT_PHASE, BATTLE_PHASE, ENDED_PHASE };

struct Agent {
    int kind;  // 0 pass, 1 random, 2 greedy
    JRandom rng;
};

struct Action {
    int verb;  // 0 SUMMON (a = id, b = lane), 1 ATTACK (a = attacker, b = target), 2 USE (a = item, b = target)
    int a, b;
};

struct Game;

// The decision's look-ahead (engine/locm/emit.py's `Ahead`), made on first use from the unchanged state.
struct Ahead {
    bool made = false;
    int health[2], counter[2], hands[2], last_damage[2], drawn[2];
    std::vector<int> runes[2];
    bool has_deck[2];
    std::vector<int> decks[2];
};

struct Game {
    Rules rules;
    std::vector<Card> cards;       // the pool, in the order given
    std::vector<int> card_index;   // base id -> index into cards
    std::vector<std::vector<int>> offers;
    int64_t shuffle_seed[2];
    Phase phase;
    int seq, current, turn = -1, round = 0, next_id, winner = -1;
    int end_reason = -1;  // a Word
    std::vector<Unit> units;  // by id
    Player players[2];
    std::vector<Ev> log;   // every event (the decision being made: from `start` on)
    std::vector<int> ints;  // the events' lists (Ev::l1, l2)
    std::vector<std::string> strs;  // the events' texts from outside (Ev::s1, s2)
    bool keep_log = true;  // off: the events are applied and dropped (a vector environment's games, log off)
    bool timed = true;     // each agent's turn timed (`turn_ms`)

    // the decision being made
    size_t start = 0;
    int out_seq = 0, out_cause = -1;
    Ahead ahead;

    int put_list(const int* p, size_t k) {
        int at = static_cast<int>(ints.size());
        ints.insert(ints.end(), p, p + k);
        return at;
    }
    void set_l1(Ev& e, const std::vector<int>& v) { e.n1 = static_cast<int>(v.size()); e.l1 = put_list(v.data(), v.size()); }
    void set_l2(Ev& e, const std::vector<int>& v) { e.n2 = static_cast<int>(v.size()); e.l2 = put_list(v.data(), v.size()); }
    const int* l1(const Ev& e) const { return ints.data() + e.l1; }
    const int* l2(const Ev& e) const { return ints.data() + e.l2; }

    const Card& card_of(const Unit& u) const { return cards[u.card]; }
    Unit& unit(int id) {
        if (id < 0 || id >= static_cast<int>(units.size()) || units[id].id != id) throw std::runtime_error("unknown unit");
        return units[id];
    }

    // -- emitting --------------------------------------------------------------------------------------------
    Ev& emit(Type t, int cause, Rule r) {
        Ev& e = log.emplace_back();
        e.type = t;
        e.rule = r;
        e.seq = out_seq++;
        e.cause = cause;
        e.word = W_ATTACK;
        e.f1 = e.f2 = false;
        e.tk = TX_PASS;
        e.n1 = e.n2 = 0;
        return e;
    }
    void begin(int cause) {
        log.resize(start);  // nothing left of a decision not applied (none is: each ends in apply)
        out_seq = seq;
        out_cause = cause;
        ahead.made = false;
    }
    Ahead& t() {
        if (!ahead.made) {
            for (int p = 0; p < 2; ++p) {
                ahead.health[p] = players[p].health;
                ahead.runes[p] = players[p].runes;
                ahead.counter[p] = players[p].damage_counter;
                ahead.hands[p] = static_cast<int>(players[p].hand.size());
                ahead.last_damage[p] = players[p].last_damage;
                ahead.drawn[p] = 0;
                ahead.has_deck[p] = false;
                ahead.decks[p].clear();
            }
            ahead.made = true;
        }
        return ahead;
    }
    int deck_size(int p) {
        Ahead& a = t();
        if (a.has_deck[p]) return static_cast<int>(a.decks[p].size());
        return static_cast<int>(players[p].deck.size()) - a.drawn[p];
    }
    int draw_id(int p) {
        Ahead& a = t();
        if (a.has_deck[p]) {
            int id = a.decks[p].back();
            a.decks[p].pop_back();
            return id;
        }
        int k = a.drawn[p]++;
        return players[p].deck[players[p].deck.size() - 1 - k];
    }

    // -- emit.py -------------------------------------------------------------------------------------------------
    void lose_health(int player, int amount, Word source, Rule rule, int cause, bool counts = true,
                     bool bonus = true) {
        if (amount <= 0) return;
        Ahead& a = t();
        Ev& d = emit(PLAYER_DAMAGED, cause, rule);
        d.n[0] = player; d.n[1] = amount; d.word = source; d.f1 = counts;
        int damage = d.seq;
        a.last_damage[player] = damage;
        int h = a.health[player] - amount;
        a.health[player] = h;
        if (rules.draw_runes) {
            std::vector<int>& runes = a.runes[player];
            if (!runes.empty() && runes[0] >= h) {
                size_t had = runes.size();
                int broken = damage;
                for (int r : runes) {
                    if (r >= h) {
                        Ev& b = emit(RUNE_BROKEN, damage, R_RUNES);
                        b.n[0] = player; b.n[1] = r;
                        broken = b.seq;
                    }
                }
                runes.erase(std::remove_if(runes.begin(), runes.end(), [h](int r) { return r >= h; }), runes.end());
                if (bonus) {
                    Ev& b = emit(DRAW_BONUS, broken, R_RUNES);
                    b.n[0] = player; b.n[1] = static_cast<int>(had - runes.size()); b.word = W_RUNE;
                }
            }
        } else if (counts && rules.damage_draw_step) {
            int step = rules.damage_draw_step;
            int old = a.counter[player];
            int now = old + amount;
            a.counter[player] = now;
            int n = floordiv(now, step) - floordiv(old, step);
            if (n) {
                Ev& b = emit(DRAW_BONUS, damage, R_DAMAGEDRAW);
                b.n[0] = player; b.n[1] = n; b.word = W_DAMAGE;
            }
        }
    }
    static int floordiv(int a, int b) {
        int q = a / b;
        if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
        return q;
    }
    void heal(int player, int amount, Word source, Rule rule, int cause) {
        Ev& e = emit(PLAYER_HEALED, cause, rule);
        e.n[0] = player; e.n[1] = amount; e.word = source;
        t().health[player] += amount;
    }
    void change_health(int player, int delta, Word source, Rule rule, int cause) {
        if (delta > 0) heal(player, delta, source, rule, cause);
        else if (delta < 0) lose_health(player, -delta, source, rule, cause);
    }
    void card_effects(int p, const Card& c, int times, Word source, Rule rule, int cause) {
        bool changed = c.my_health || c.opp_health;
        if (changed) {
            change_health(p, c.my_health * times, source, rule, cause);
            change_health(1 - p, c.opp_health * times, source, rule, cause);
        }
        if (c.draw) {
            Ev& e = emit(DRAW_BONUS, cause, rule);
            e.n[0] = p; e.n[1] = c.draw * times; e.word = W_CARD;
        }
        if (changed) win_check(p);
    }
    bool win_check(int acting) {
        Ahead& a = t();
        int other = 1 - acting, dead, win;
        if (a.health[other] <= 0) { dead = other; win = acting; }
        else if (a.health[acting] <= 0) { dead = acting; win = other; }
        else return false;
        int cause = a.last_damage[dead];
        if (cause < 0) cause = out_cause;
        Ev& e = emit(GAME_ENDED, cause, R_WIN);
        e.n[0] = win; e.word = W_HEALTH; e.n[1] = turn;
        return true;
    }

    // -- drawing.py ----------------------------------------------------------------------------------------------
    void cap_end(int acting, int cause) {
        Ahead& a = t();
        int win = a.health[acting] == a.health[1 - acting] ? acting : (a.health[0] > a.health[1] ? 0 : 1);
        Ev& e = emit(GAME_ENDED, cause, R_CAP);
        e.n[0] = win; e.word = W_CAP; e.n[1] = turn;
    }
    void end_turn(int player) {
        Ev& e = emit(TURN_ENDED, out_cause, R_TURN);
        e.n[0] = player;
        int ended = e.seq;
        if (turn + 1 >= CAP_TURNS) { cap_end(player, ended); return; }
        start_turn(1 - player, ended);
    }
    void start_turn(int p, int cause) {
        Player& pl = players[p];
        int mm = pl.max_mana;
        if (mm < rules.max_mana + (pl.bonus ? 1 : 0)) ++mm;
        bool spent = pl.bonus && pl.mana == 0;
        if (spent) --mm;
        int draws = pl.next_draw;
        Ev& e = emit(TURN_STARTED, cause, R_TURN);
        e.n[0] = p; e.n[1] = turn + 1; e.n[2] = mm; e.n[3] = mm; e.f1 = spent; e.n[4] = draws;
        int started = e.seq;
        set_l1(e, pl.board);
        set_l2(log.back(), players[1 - p].board);
        if (rules.empty_lose_rune) draw_with_runes(p, draws, started);
        else draw_with_damage(p, draws, started);
    }
    void draw_with_runes(int p, int draws, int cause) {
        Ahead& a = t();
        bool over_limit = players[p].turns >= rules.turn_limit;
        int left = deck_size(p);
        for (int i = 0; i < draws; ++i) {
            if (out_seq >= CAP_EVENTS) { cap_end(1 - p, cause); return; }
            if (over_limit || !left) {
                int target = a.runes[p].empty() ? 0 : a.runes[p][0];
                lose_health(p, a.health[p] - target, over_limit ? W_TURN_LIMIT : W_DECK, R_DRAW, cause, true, false);
                if (a.health[p] <= 0) return;
                continue;
            }
            if (a.hands[p] >= rules.hand_limit) {
                int lost = rules.full_hand_stops_draws ? draws - i : 1;
                for (int k = 0; k < lost; ++k) {
                    Ev& e = emit(DRAW_LOST, cause, R_DRAW);
                    e.n[0] = p; e.word = W_HAND_FULL;
                }
                if (rules.full_hand_stops_draws) return;
                continue;
            }
            draw(p, R_DRAW, cause);
            --left;
        }
    }
    void draw_with_damage(int p, int draws, int cause) {
        Ahead& a = t();
        if (rules.limit_ten_damage && players[p].turns >= rules.turn_limit)
            lose_health(p, rules.penalty_damage, W_TURN_LIMIT, R_DRAW, cause, false);
        int left = deck_size(p);
        for (int i = 0; i < draws; ++i) {
            if (out_seq >= CAP_EVENTS) { cap_end(1 - p, cause); return; }
            if (a.hands[p] >= rules.hand_limit) {
                Ev& e = emit(DRAW_LOST, cause, R_DRAW);
                e.n[0] = p; e.word = W_HAND_FULL;
                if (rules.full_hand_stops_draws) return;
            } else if (!left) {
                lose_health(p, rules.penalty_damage, W_DECK, R_DRAW, cause, false);
            } else {
                draw(p, R_DRAW, cause);
                --left;
            }
        }
    }
    void draw(int p, Rule rule, int cause) {
        int id = draw_id(p);
        Ev& e = emit(CARD_DRAWN, cause, rule);
        e.n[0] = p; e.n[1] = id;
        t().hands[p] += 1;
    }

    // -- setup.py: decks, opening hands, the first turn ----------------------------------------------------------
    void begin_battle(const std::vector<int>& c0, const std::vector<int>& c1, int cause) {
        const std::vector<int>* chosen[2] = {&c0, &c1};
        int ordered[2];
        for (int p = 0; p < 2; ++p) {
            const std::vector<int>& picks = *chosen[p];
            int n = static_cast<int>(picks.size());
            JRandom rng = JRandom::from_seed(shuffle_seed[p]);
            std::vector<int> ids, base_ids;
            if (rules.id_scheme == IDS_12) {
                base_ids = picks;
                java_shuffle(rng, base_ids);
                for (int i = 0; i < n; ++i) ids.push_back(2 * i + p + 1);
            } else {
                std::vector<std::pair<int, int>> numbered;
                for (int i = 0; i < n; ++i)
                    numbered.emplace_back(rules.id_scheme == IDS_REVISED ? 2 * i + p * 2 * n : i + 1 + p * n, picks[i]);
                java_shuffle(rng, numbered);
                for (auto& [i, b] : numbered) { ids.push_back(i); base_ids.push_back(b); }
            }
            Ev& e = emit(DECK_ORDERED, cause, R_DECK);
            e.n[0] = p;
            ordered[p] = e.seq;
            set_l1(e, ids);
            set_l2(log.back(), base_ids);
            Ahead& a = t();
            a.has_deck[p] = true;
            a.decks[p].assign(ids.rbegin(), ids.rend());
        }
        for (int p = 0; p < 2; ++p)
            for (int k = 0; k < OPENING_HAND[p]; ++k) draw(p, R_TURN, ordered[p]);
        start_turn(0, cause);
    }

    // -- battle.py, combat.py, items.py --------------------------------------------------------------------------
    int lane_count(int p, int lane) {
        int n = 0;
        for (int id : players[p].board) n += units[id].lane == lane;
        return n;
    }
    void summon(int p, int id, int lane) {
        Unit& u = unit(id);
        const Card& c = card_of(u);
        bool charge = u.keywords & CHARGE;
        Ev& e = emit(CREATURE_SUMMONED, out_cause, R_SUMMON);
        e.n[0] = p; e.n[1] = id; e.n[2] = c.base_id; e.n[3] = lane; e.n[4] = c.cost; e.n[5] = 0; e.f1 = charge;
        int summoned = e.seq;
        int placed = 1;
        if (rules.area && c.area) {
            int copy_lane = c.area == 1 ? lane : 1 - lane;
            int count = lane_count(p, copy_lane) + (copy_lane == lane);
            if (count < rules.lane_size) {
                int copy_id = rules.id_scheme == IDS_REVISED ? id + 1 : next_id;
                Ev& k = emit(CREATURE_SUMMONED, summoned, R_SUMMON);
                k.n[0] = p; k.n[1] = copy_id; k.n[2] = c.base_id; k.n[3] = copy_lane; k.n[4] = 0; k.n[5] = id;
                k.f1 = c.keywords & CHARGE;
                placed = 2;
            }
        }
        card_effects(p, c, placed, W_SUMMON, R_SUMMON, summoned);
    }
    void attack(int p, int aid, int tid) {
        Unit& a = unit(aid);
        Ev& e = emit(CREATURE_ATTACKED, out_cause, R_ATTACK);
        e.n[0] = p; e.n[1] = aid; e.n[2] = tid;
        int att = e.seq;
        int opp = 1 - p;
        if (tid == -1) {
            if (a.attack > 0) {
                if (a.keywords & DRAIN) heal(p, a.attack, W_DRAIN, R_ATTACK, att);
                lose_health(opp, a.attack, W_ATTACK, R_ATTACK, att);
            }
            win_check(p);
            return;
        }
        Unit& d = unit(tid);
        int a_kw = a.keywords, d_kw = d.keywords;
        int given = (d_kw & WARD) ? 0 : a.attack;
        int taken = (a_kw & WARD) ? 0 : d.attack;
        bool d_dies = given >= d.defense || (given > 0 && (a_kw & LETHAL));
        int excess = ((a_kw & BREAKTHROUGH) && given >= d.defense) ? given - d.defense : 0;
        if ((d_kw & WARD) && a.attack > 0) { Ev& w = emit(WARD_LOST, att, R_ATTACK); w.n[0] = tid; }
        if (d_dies) { Ev& w = emit(CREATURE_DIED, att, R_ATTACK); w.n[0] = tid; }
        else if (given > 0) { Ev& w = emit(CREATURE_DAMAGED, att, R_ATTACK); w.n[0] = tid; w.n[1] = given; }
        if ((a_kw & WARD) && d.attack > 0) { Ev& w = emit(WARD_LOST, att, R_ATTACK); w.n[0] = aid; }
        if (taken >= a.defense || (taken > 0 && (d_kw & LETHAL))) { Ev& w = emit(CREATURE_DIED, att, R_ATTACK); w.n[0] = aid; }
        else if (taken > 0) { Ev& w = emit(CREATURE_DAMAGED, att, R_ATTACK); w.n[0] = aid; w.n[1] = taken; }
        bool drain = given > 0 && (a_kw & DRAIN);
        if (!drain && excess <= 0) return;
        if (drain) heal(p, a.attack, W_DRAIN, R_ATTACK, att);
        if (excess > 0) lose_health(opp, excess, W_BREAKTHROUGH, R_ATTACK, att);
        win_check(p);
    }
    void use(int p, int iid, int tid) {
        Unit& item = unit(iid);
        const Card& c = card_of(item);
        Ev& e = emit(ITEM_USED, out_cause, R_USE);
        e.n[0] = p; e.n[1] = iid; e.n[2] = c.base_id; e.n[3] = tid; e.n[4] = c.cost;
        int used = e.seq;
        int opp = 1 - p;
        if (tid == -1) {
            change_health(p, c.my_health, W_ITEM, R_USE, used);
            change_health(opp, c.defense + c.opp_health, W_ITEM, R_USE, used);
            if (c.draw) { Ev& b = emit(DRAW_BONUS, used, R_USE); b.n[0] = p; b.n[1] = c.draw; b.word = W_CARD; }
            win_check(p);
            return;
        }
        Unit& target = unit(tid);
        std::vector<int> targets{tid};
        if (rules.area && c.area) {
            const std::vector<int>& side = players[target.owner].board;
            targets.clear();
            for (int id : side)
                if (c.area == 2 || units[id].lane == target.lane) targets.push_back(id);
        }
        for (int id : targets) apply_item(c, units[id], used);
        card_effects(p, c, static_cast<int>(targets.size()), W_ITEM, R_USE, used);
    }
    void apply_item(const Card& c, const Unit& u, int used) {
        int kw = u.keywords;
        bool can = u.can_attack;
        if (c.type == GREEN) {
            kw |= c.keywords;
            if ((c.keywords & CHARGE) && !u.has_attacked) can = true;
        } else {
            kw &= ~c.keywords;
        }
        int att = std::max(0, u.attack + c.attack);
        int def = u.defense;
        bool ward_lost = (kw & WARD) && c.defense < 0;
        if (!ward_lost) def += c.defense;
        Ev& m = emit(CREATURE_MODIFIED, used, R_USE);
        m.n[0] = u.id; m.n[1] = att; m.n[2] = def; m.n[3] = kw; m.f1 = can;
        int modified = m.seq;
        if (ward_lost) { Ev& w = emit(WARD_LOST, used, R_USE); w.n[0] = u.id; }
        if (def <= 0) { Ev& w = emit(CREATURE_DIED, modified, R_USE); w.n[0] = u.id; }
    }

    // -- legal.py: the legal list, in its order ------------------------------------------------------------------
    void legal(std::vector<Action>& acts) {
        acts.clear();
        if (phase != BATTLE_PHASE) return;
        Player& me = players[current];
        Player& op = players[1 - current];
        int n0 = 0, n1 = 0;
        for (int id : me.board) (units[id].lane ? n1 : n0) += 1;
        bool free0 = n0 < rules.lane_size, free1 = n1 < rules.lane_size;
        for (int id : me.hand) {
            const Unit& u = units[id];
            const Card& c = card_of(u);
            if (c.cost > me.mana) continue;
            if (c.type == CREATURE) {
                if (free0) acts.push_back({0, id, 0});
                if (free1) acts.push_back({0, id, 1});
            } else if (c.type == GREEN) {
                for (int v : me.board) acts.push_back({2, id, v});
            } else if (c.type == RED) {
                for (int v : op.board) acts.push_back({2, id, v});
            } else {
                acts.push_back({2, id, -1});
                for (int v : op.board) acts.push_back({2, id, v});
            }
        }
        bool guarded[2] = {false, false};
        for (int id : op.board)
            if (units[id].keywords & GUARD) guarded[units[id].lane] = true;
        for (int aid : me.board) {
            const Unit& a = units[aid];
            if (!a.can_attack) continue;
            bool g = guarded[a.lane];
            if (!g) acts.push_back({1, aid, -1});
            for (int id : op.board) {
                const Unit& v = units[id];
                if (v.lane != a.lane) continue;
                if (!g || (v.keywords & GUARD)) acts.push_back({1, aid, id});
            }
        }
    }

    // -- decide.py -----------------------------------------------------------------------------------------------
    Ev& record(int player, Text text, Word kind) {
        Ev& e = emit(ACTION_RECEIVED, -1, R_ACTIONS);
        e.n[0] = player; e.tk = text; e.word = kind;
        return e;
    }
    // A battle command (an action of the legal list, or the end of the turn): its record, then the dead player's
    // end or the cap, else the command itself.
    void battle_command(const Action* act) {
        int player = current;
        begin(-1);
        Ev& r = record(player, act ? TX_COMMAND : TX_PASS, act ? W_ACTION : W_END_TURN);
        if (act) { r.n[1] = act->verb; r.n[2] = act->a; r.n[3] = act->b; }
        out_cause = r.seq;
        if (players[0].health <= 0 || players[1].health <= 0) {
            win_check(player);
        } else if (seq >= CAP_EVENTS) {
            cap_end(player, out_cause);
        } else if (!act) {
            end_turn(player);
        } else if (act->verb == 0) {
            summon(player, act->a, act->b);
        } else if (act->verb == 1) {
            attack(player, act->a, act->b);
        } else {
            use(player, act->a, act->b);
        }
        apply();
    }
    void pick(int player, int index) {
        begin(-1);
        Ev& r = record(player, TX_PICK, W_ACTION);
        r.n[1] = index;
        out_cause = r.seq;
        bool last = player == 1 && round == rules.draft_rounds - 1;
        Ev& e = emit(CARD_PICKED, out_cause, R_DRAFT);
        int base = offers[round][index];
        e.n[0] = player; e.n[1] = round; e.n[2] = base; e.f1 = last;
        if (last) {
            std::vector<int> c1 = players[1].picks;
            c1.push_back(base);
            begin_battle(players[0].picks, c1, e.seq);
        }
        apply();
    }
    void build(int player, const std::vector<int>& deck) {
        begin(-1);
        Ev& r = record(player, TX_CHOOSE, W_ACTION);
        out_cause = r.seq;
        set_l1(r, deck);
        bool last = player == 1;
        Ev& e = emit(DECK_CHOSEN, out_cause, R_CONSTRUCT);
        e.n[0] = player; e.f1 = last;
        e.l1 = log[log.size() - 2].l1; e.n1 = log[log.size() - 2].n1;  // the list its record's text is made of
        int chosen = e.seq;
        if (last) begin_battle(players[0].picks, deck, chosen);
        apply();
    }

    // A timeout, a crash, a flood (decide.py's `hard_error` with no cause): recorded, and the player loses.
    void forfeit(int player, std::string reason, std::string text) {
        begin(-1);
        Ev& h = emit(HARD_ERROR, -1, R_ACTIONS);
        h.n[0] = player; h.tk = TX_STRING;
        h.s2 = static_cast<int>(strs.size()); strs.push_back(std::move(reason));
        h.s1 = static_cast<int>(strs.size()); strs.push_back(std::move(text));
        int error = h.seq;
        Ev& e = emit(GAME_ENDED, error, R_ACTIONS);
        e.n[0] = 1 - player; e.word = W_HARD_ERROR; e.n[1] = turn;
        apply();
    }

    // -- redecide.py: one recorded input again ---------------------------------------------------------------------
    // `kind` 0 an action (its canonical text: PICK, CHOOSE, SUMMON, ATTACK, USE), 1 the end of a turn, 2 a hard
    // error. False, with nothing played, for an input this core does not take as it is (a text not in its
    // canonical form, a command the rules refuse, the wrong player, a game over, a text not printable ASCII):
    // the Python core re-decides that log and says what is wrong with it.
    bool play_input(int kind, int player, const std::string& text, const std::string& reason) {
        if (phase == ENDED_PHASE || player != current) return false;
        if (kind == 2) {
            if (!printable(text) || !printable(reason)) return false;
            forfeit(player, reason, text);
            return true;
        }
        if (kind == 1) {
            if (phase != BATTLE_PHASE) return false;
            battle_command(nullptr);
            return true;
        }
        if (kind != 0) return false;
        std::string_view t(text);
        if (phase == DRAFT_PHASE) {
            int k;
            if (!starts(t, "PICK ") || !whole_int(t.substr(5), k)) return false;
            if (round >= static_cast<int>(offers.size()) || k < 0 || k >= static_cast<int>(offers[round].size()))
                return false;
            pick(player, k);
            return true;
        }
        if (phase == CONSTRUCT_PHASE) {
            std::vector<int> deck;
            std::vector<int> counts(cards.size(), 0);
            while (true) {
                size_t end = t.find(';');
                std::string_view part = t.substr(0, end);
                int b;
                if (!starts(part, "CHOOSE ") || !whole_int(part.substr(7), b)) return false;
                if (b < 0 || b >= static_cast<int>(cards.size()) || ++counts[b] > rules.max_copies) return false;
                deck.push_back(b);
                if (end == std::string_view::npos) break;
                t = t.substr(end + 1);
            }
            if (static_cast<int>(deck.size()) != rules.deck_size) return false;
            build(player, deck);
            return true;
        }
        static const std::string_view VERBS[] = {"SUMMON ", "ATTACK ", "USE "};
        for (int verb = 0; verb < 3; ++verb) {
            if (!starts(t, VERBS[verb])) continue;
            std::string_view rest = t.substr(VERBS[verb].size());
            size_t space = rest.find(' ');
            int a, b;
            if (space == std::string_view::npos || !whole_int(rest.substr(0, space), a)
                || !whole_int(rest.substr(space + 1), b))
                return false;
            legal(scratch);
            for (const Action& act : scratch) {
                if (act.verb == verb && act.a == a && act.b == b) {
                    Action chosen = act;
                    battle_command(&chosen);
                    return true;
                }
            }
            return false;  // not in the legal list: the Python core rejects it (`battle.reject`)
        }
        return false;
    }
    static bool starts(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
    static bool whole_int(std::string_view s, int& v) {  // an int as Python's str(int) writes it, nothing else
        if (s.empty() || s[0] == '+' || (s.size() > 1 && s[0] == '0') || starts(s, "-0")) return false;
        auto r = std::from_chars(s.data(), s.data() + s.size(), v);
        return r.ec == std::errc() && r.ptr == s.data() + s.size();
    }
    static bool printable(const std::string& s) {
        for (char c : s)
            if (c < 0x20 || c > 0x7e) return false;
        return true;
    }

    // -- evolve.py -----------------------------------------------------------------------------------------------
    void apply() {
        if (log.size() == start) return;
        int last = log.back().seq;
        for (size_t k = start; k < log.size(); ++k) evolve(log[k]);
        seq = last + 1;
        if (keep_log) {
            start = log.size();
        } else {
            log.clear();
            ints.clear();
            strs.clear();
        }
    }
    static void remove_id(std::vector<int>& v, int id) {
        auto it = std::find(v.begin(), v.end(), id);
        if (it == v.end()) throw std::runtime_error("unit not in zone");
        v.erase(it);
    }
    void ensure_unit(int id) {
        if (id >= static_cast<int>(units.size())) units.resize(id + 1);
    }
    void evolve(const Ev& e) {
        switch (e.type) {
        case ACTION_RECEIVED: case TURN_ENDED: case DRAW_LOST: case HARD_ERROR: break;
        case CARD_DRAWN: {
            Player& pl = players[e.n[0]];
            int id = pl.deck.back();
            if (id != e.n[1]) throw std::runtime_error("card_drawn: not the top card");
            pl.deck.pop_back();
            pl.hand.push_back(id);
            break;
        }
        case CREATURE_ATTACKED: {
            Unit& u = unit(e.n[1]);
            u.can_attack = false; u.has_attacked = true; u.touched = true;
            if (e.n[2] != -1) unit(e.n[2]).touched = true;
            players[e.n[0]].actions.push_back({card_of(u).base_id, 1, e.n[1], e.n[2]});
            break;
        }
        case CREATURE_DAMAGED: unit(e.n[0]).defense -= e.n[1]; break;
        case CREATURE_DIED: {
            Unit& u = unit(e.n[0]);
            remove_id(players[u.owner].board, u.id);
            break;
        }
        case PLAYER_DAMAGED: {
            Player& pl = players[e.n[0]];
            pl.health -= e.n[1];
            pl.last_damage = e.seq;
            if (e.f1) pl.damage_counter += e.n[1];
            break;
        }
        case PLAYER_HEALED: players[e.n[0]].health += e.n[1]; break;
        case CREATURE_SUMMONED: {
            int p = e.n[0], id = e.n[1];
            Player& pl = players[p];
            if (e.n[5]) {
                int card = unit(e.n[5]).card;
                ensure_unit(id);
                Unit& u = units[id];
                u = Unit();
                u.id = id; u.card = card; u.owner = p;
                const Card& c = cards[card];
                u.attack = c.attack; u.defense = c.defense; u.keywords = c.keywords;
                if (id >= next_id) next_id = id + 1;
            } else {
                Unit& u = unit(id);
                remove_id(pl.hand, id);
                pl.mana -= e.n[4];
                pl.actions.push_back({card_of(u).base_id, 0, id, e.n[3]});
            }
            Unit& u = units[id];
            u.lane = e.n[3];
            u.can_attack = e.f1;
            pl.board.push_back(id);
            break;
        }
        case ITEM_USED: {
            Player& pl = players[e.n[0]];
            Unit& u = unit(e.n[1]);
            remove_id(pl.hand, e.n[1]);
            pl.mana -= e.n[4];
            if (e.n[3] != -1) unit(e.n[3]).touched = true;
            pl.actions.push_back({card_of(u).base_id, 2, e.n[1], e.n[3]});
            break;
        }
        case CREATURE_MODIFIED: {
            Unit& u = unit(e.n[0]);
            u.attack = e.n[1]; u.defense = e.n[2]; u.keywords = e.n[3]; u.can_attack = e.f1;
            break;
        }
        case WARD_LOST: unit(e.n[0]).keywords &= ~WARD; break;
        case DRAW_BONUS: players[e.n[0]].next_draw += e.n[1]; break;
        case RUNE_BROKEN: remove_id(players[e.n[0]].runes, e.n[1]); break;
        case TURN_STARTED: {
            int p = e.n[0];
            for (int k = 0; k < e.n2; ++k) { Unit& u = unit(l2(e)[k]); u.can_attack = false; u.has_attacked = false; }
            for (int k = 0; k < e.n1; ++k) unit(l1(e)[k]).can_attack = true;
            if (e.n[1] > 0) { Player& ending = players[1 - p]; ending.draw_shown = ending.next_draw; }
            phase = BATTLE_PHASE;
            current = p;
            turn = e.n[1];
            Player& pl = players[p];
            pl.max_mana = e.n[2];
            pl.mana = e.n[3];
            if (e.f1) pl.bonus = false;
            pl.actions.clear();
            pl.draw_shown = e.n[4];
            pl.turns += 1;
            pl.next_draw = 1;
            pl.damage_counter = 0;
            break;
        }
        case GAME_ENDED: phase = ENDED_PHASE; winner = e.n[0]; end_reason = e.word; break;
        case CARD_PICKED: {
            int p = e.n[0];
            players[p].picks.push_back(e.n[2]);
            if (p == 1) {
                round += 1;  // the offer follows `round` (an empty offer past the draft's end)
            }
            current = 1 - p;
            if (e.f1) phase = BATTLE_PHASE;
            break;
        }
        case DECK_CHOSEN: {
            players[e.n[0]].picks.assign(l1(e), l1(e) + e.n1);
            current = 1 - e.n[0];
            if (e.f1) phase = BATTLE_PHASE;
            break;
        }
        case DECK_ORDERED: {
            int p = e.n[0];
            std::vector<int>& deck = players[p].deck;
            deck.clear();
            for (int k = 0; k < e.n1; ++k) {
                int id = l1(e)[k];
                ensure_unit(id);
                Unit& u = units[id];
                u = Unit();
                u.id = id;
                int b = l2(e)[k];
                if (b < 0 || b >= static_cast<int>(card_index.size()) || card_index[b] < 0)
                    throw std::runtime_error("deck_ordered: a card not in the pool");
                u.card = card_index[b];
                u.owner = p;
                const Card& c = cards[u.card];
                u.attack = c.attack; u.defense = c.defense; u.keywords = c.keywords;
            }
            for (int k = e.n1 - 1; k >= 0; --k) deck.push_back(l1(e)[k]);
            break;
        }
        }
    }

    // -- agents.py: pass, random and greedy ---------------------------------------------------------------------
    void play(Agent* agents) {
        while (phase != ENDED_PHASE) {
            int p = current;
            if (!timed) {
                agent_turn(agents[p]);
                continue;
            }
            auto started = std::chrono::steady_clock::now();
            agent_turn(agents[p]);
            std::chrono::duration<double, std::milli> ms = std::chrono::steady_clock::now() - started;
            turn_ms[p].push_back(ms.count());  // one agent's turn (what `Agent.play_turn` does once), timed
        }
    }
    // One turn of the player to move by a built-in agent: a pick, a deck, or a whole battle turn.
    void agent_turn(Agent& ag) {
        int p = current;
        std::vector<Action>& acts = scratch;
        if (phase == DRAFT_PHASE) {
            int n = static_cast<int>(offers[round].size());
            pick(p, ag.kind == 1 ? java_next_int(ag.rng, n) : ag.kind == 2 ? greedy_pick(p) : 0);
        } else if (phase == CONSTRUCT_PHASE) {
            std::vector<int> deck;
            if (ag.kind == 1) deck = random_deck(ag.rng);
            else if (ag.kind == 2) deck = greedy_deck();
            else fill_deck(deck);
            build(p, deck);
        } else if (phase == BATTLE_PHASE) {
            if (ag.kind == 1) {
                while (true) {
                    legal(acts);
                    int n = static_cast<int>(acts.size());
                    int k = java_next_int(ag.rng, n + 1);
                    if (k == n) break;
                    Action a = acts[k];
                    battle_command(&a);
                    if (phase == ENDED_PHASE) break;
                }
            } else if (ag.kind == 2) {
                for (int k = 0; k < 3 * rules.hand_limit + 2 * rules.lane_size; ++k) {
                    if (phase == ENDED_PHASE) break;
                    legal(acts);
                    const Action* a = greedy_choice(p, acts);
                    if (!a) break;
                    Action chosen = *a;
                    battle_command(&chosen);
                }
            }
            if (phase != ENDED_PHASE) battle_command(nullptr);
        }
    }
    std::vector<Action> scratch;  // the agents' legal lists

    std::vector<double> turn_ms[2];  // each seat's turns (its agent's decisions), in milliseconds

    // greedy (engine/locm/agents.py's GreedyAgent), its float arithmetic in the same order
    const double* kw_value = nullptr;  // the keywords' value by mask, summed by the Python core (`card_score`)
    double card_score(const Card& c) const {
        double kw = kw_value[c.keywords & 63];
        double effects = (c.my_health * 0.3 - c.opp_health * 0.5) + c.draw * 1.5;
        double value;
        if (c.type == CREATURE || c.type == GREEN) value = (static_cast<double>(c.attack + c.defense) + kw) + effects;
        else value = (static_cast<double>(-c.attack - c.defense) + kw * 0.5) + effects;
        value *= c.area == 2 ? 1.5 : c.area == 1 ? 1.3 : 1.0;
        return value / static_cast<double>(c.cost + 1);
    }
    static int share(int deck, int of_30) { return deck * of_30 / 30; }
    int greedy_pick(int p) {
        int items = 0;
        for (int b : players[p].picks) items += cards[card_index[b]].type != CREATURE;
        int max_items = share(rules.draft_rounds, 8);
        int best = 0;
        double best_score = -std::numeric_limits<double>::infinity();
        const std::vector<int>& offer = offers[round];
        for (size_t i = 0; i < offer.size(); ++i) {
            const Card& c = cards[card_index[offer[i]]];
            double sc = card_score(c);
            if (c.type != CREATURE && items >= max_items) sc -= 1.0;
            if (best_score < sc) { best = static_cast<int>(i); best_score = sc; }
        }
        return best;
    }
    std::vector<int> greedy_deck() {
        int size = rules.deck_size, max_heavy = share(size, 8), max_items = share(size, 12);
        std::vector<std::pair<double, int>> ranked;  // (-score, base id): the Python core's sort key
        for (const Card& c : cards) ranked.emplace_back(-card_score(c), c.base_id);
        std::sort(ranked.begin(), ranked.end());
        std::vector<int> deck;
        int heavy = 0, items = 0;
        for (auto& [score, base] : ranked) {
            const Card& c = cards[card_index[base]];
            for (int k = 0; k < rules.max_copies; ++k) {
                if (static_cast<int>(deck.size()) == size) return deck;
                if ((c.cost >= 7 && heavy >= max_heavy) || (c.type != CREATURE && items >= max_items)) break;
                deck.push_back(base);
                heavy += c.cost >= 7;
                items += c.type != CREATURE;
            }
        }
        fill_deck(deck);
        return deck;
    }
    const Action* greedy_choice(int p, const std::vector<Action>& acts) {
        const Player& op = players[1 - p];
        const Action* best = nullptr;
        double best_value = 0.0;
        for (const Action& a : acts) {
            double v;
            if (a.verb == 0) {
                const Card& c = card_of(units[a.a]);
                v = (2.0 + c.cost) + card_score(c);
                v -= 0.1 * lane_count(p, a.b);
            } else if (a.verb == 2) {
                const Card& c = card_of(units[a.a]);
                if (a.b == -1) {
                    v = c.type == BLUE ? ((-c.defense - c.opp_health) * 0.8 + c.my_health * 0.3) + c.draw : 0.0;
                } else if (c.type == GREEN) {
                    v = (0.5 + c.cost * 0.8) + (units[a.b].can_attack ? 1.0 : 0.0);
                } else {
                    const Unit& t = units[a.b];
                    int threat = t.attack + t.defense + ((t.keywords & GUARD) ? 2 : 0);
                    bool kills = t.defense + c.defense <= 0 && !(t.keywords & WARD);
                    v = (kills ? threat * 1.2 : 0.4 * threat) + (c.type == RED ? 1 : 0);
                }
            } else {
                v = attack_value(units[a.a], a.b, op);
            }
            if (v > best_value) { best = &a; best_value = v; }
        }
        return best;
    }
    double attack_value(const Unit& att, int target, const Player& op) {
        if (att.attack <= 0) return 0.0;
        if (target == -1) return 1.0 + att.attack * (op.health <= att.attack ? 2.0 : 0.5);
        const Unit& d = units[target];
        bool kills = !(d.keywords & WARD) && (att.attack >= d.defense || (att.keywords & LETHAL));
        bool dies = !(att.keywords & WARD) && d.attack > 0 && (d.attack >= att.defense || (d.keywords & LETHAL));
        double value = kills ? static_cast<double>(d.attack + d.defense) : 0.3;
        if (d.keywords & GUARD) value += 2.0;
        if (dies) value -= att.attack + att.defense;
        return value + 1.5;
    }
    std::vector<int> random_deck(JRandom& rng) {
        int n = static_cast<int>(cards.size());
        std::vector<int> counts(n, 0), deck;
        int missing = rules.deck_size;
        while (missing > 0) {
            int b = java_next_int(rng, n);
            if (counts[b] < rules.max_copies) {
                counts[b] += 1;
                deck.push_back(b);
                --missing;
            }
        }
        return deck;
    }
    void fill_deck(std::vector<int>& deck) {  // construct.fill_deck: a bare PASS, or what completes a deck
        int n = static_cast<int>(cards.size());
        std::vector<int> counts(n, 0);
        for (int b : deck)
            if (0 <= b && b < n) counts[b] += 1;
        int b = 0;
        while (static_cast<int>(deck.size()) < rules.deck_size && b < n) {
            if (counts[b] < rules.max_copies) { deck.push_back(b); counts[b] += 1; }
            else ++b;
        }
    }
};


// --- the 1.5 card generator (R-CARDGEN), from the Python core's tables -------------------------------------------
//
// engine/locm/cardgen.py builds, once per weights file, each weighted choice's thresholds: the referee's pick for
// nextDouble() = D * 2**-53 is the option at `bisect_left(thresholds, D)` (its walk, checked there). Handed in
// once (`set_cardgen_tables`), they make the generator here a plain walk over the eleven sub-generators, card by
// card, as the referee draws them. Cards changed after generation (a variant's ``cardChanges``) are the Python
// core's.

struct Row { double mult, add; int value; };
struct Choice {
    std::vector<int64_t> thresholds;
    std::vector<Row> rows;  // value only (mult 1, add 0) for the integer choices
    int pick(JRandom& r) const {
        int64_t hi = r.next(26), lo = r.next(27);
        int64_t d = (hi << 27) + lo;
        return static_cast<int>(std::lower_bound(thresholds.begin(), thresholds.end(), d) - thresholds.begin());
    }
};
struct CardgenTables {
    Choice types, mana, kw_count, area, draw, my, opp;
    std::vector<Choice> keywords;  // by the mask of the keywords taken (empty rows: none left)
    double att_mean, att_std, def_mean, def_std;
};
std::vector<CardgenTables> CARDGEN;

Choice choice_from(const py::handle& h) {
    Choice c;
    auto t = h.cast<py::tuple>();
    c.thresholds = t[0].cast<std::vector<int64_t>>();
    for (const py::handle& v : t[1].cast<py::list>()) {
        auto row = v.cast<std::tuple<double, double, int>>();
        c.rows.push_back({std::get<0>(row), std::get<1>(row), std::get<2>(row)});
    }
    if (c.rows.size() != c.thresholds.size() + 1) throw std::invalid_argument("a choice needs one threshold less than rows");
    return c;
}

int set_cardgen_tables(const py::tuple& t) {
    CardgenTables x;
    x.types = choice_from(t[0]); x.mana = choice_from(t[1]); x.kw_count = choice_from(t[2]);
    x.area = choice_from(t[3]); x.draw = choice_from(t[4]); x.my = choice_from(t[5]); x.opp = choice_from(t[6]);
    for (const py::handle& h : t[7].cast<py::list>()) x.keywords.push_back(h.is_none() ? Choice{} : choice_from(h));
    if (x.keywords.size() != 64) throw std::invalid_argument("64 keyword choices expected");
    auto a = t[8].cast<std::pair<double, double>>(), d = t[9].cast<std::pair<double, double>>();
    x.att_mean = a.first; x.att_std = a.second; x.def_mean = d.first; x.def_std = d.second;
    CARDGEN.push_back(std::move(x));
    return static_cast<int>(CARDGEN.size() - 1);
}

constexpr double DOUBLE_UNIT = 1.0 / 9007199254740992.0;  // 2**-53

double bonus(JRandom& r, double mean, double std_) {
    int64_t hi = r.next(26), lo = r.next(27);
    double d = static_cast<double>((hi << 27) + lo);
    double scale = DOUBLE_UNIT * std_;  // D * (2**-53 * std) is the referee's (D * 2**-53) * std exactly
    return d * scale + mean;  // two roundings, as Java's (built with -ffp-contract=off: no fused multiply-add)
}

std::vector<Card> generate_cards(int64_t card_gen_seed, int handle) {
    const CardgenTables& t = CARDGEN.at(handle);
    constexpr int N = 120;
    JRandom master = JRandom::from_seed(card_gen_seed);
    JRandom sub[11];
    for (JRandom& r : sub) r = JRandom::from_seed(static_cast<int64_t>(master.next(32)));
    JRandom &r_type = sub[0], &r_mana = sub[1], &r_area = sub[2], &r_order = sub[3], &r_kwn = sub[4],
            &r_kw = sub[5], &r_draw = sub[6], &r_my = sub[7], &r_opp = sub[8], &r_att = sub[9], &r_def = sub[10];
    enum { AREA, KEYWORDS, DRAW, MY, OPP };
    int order[5] = {AREA, KEYWORDS, DRAW, MY, OPP};
    static const int MIN_DEFENSE[4] = {1, 0, 0, 0}, SIGN[4] = {1, 1, -1, -1};
    std::vector<Card> made;
    made.reserve(N);
    for (int k = 0; k < N; ++k) {
        int type = t.types.rows[t.types.pick(r_type)].value;
        int cost = t.mana.rows[t.mana.pick(r_mana)].value;
        const Row* rows[5] = {&t.area.rows[t.area.pick(r_area)], nullptr, &t.draw.rows[t.draw.pick(r_draw)],
                              &t.my.rows[t.my.pick(r_my)], &t.opp.rows[t.opp.pick(r_opp)]};
        for (int i = 4; i >= 1; --i) std::swap(order[i], order[java_next_int(r_order, i + 1)]);
        int kw_count = type != BLUE ? t.kw_count.rows[t.kw_count.pick(r_kwn)].value : 0;
        double att_bonus = bonus(r_att, t.att_mean, t.att_std), def_bonus = bonus(r_def, t.def_mean, t.def_std);
        double budget = static_cast<double>(cost);
        int got[5] = {0, 0, 0, 0, 0};
        for (int prop : order) {
            if (prop != KEYWORDS) {
                const Row& row = *rows[prop];
                double spent = budget * row.mult - row.add;
                if (spent < 0) budget = (spent + row.add) / row.mult;
                else { budget = spent; got[prop] = row.value; }
            } else {
                int mask = 0;
                for (int n = 0; n < kw_count; ++n) {
                    const Choice& c = t.keywords[mask];
                    if (c.rows.empty()) throw std::runtime_error("a keyword drawn with none left");
                    const Row& row = c.rows[c.pick(r_kw)];
                    double spent = budget * row.mult - row.add;
                    if (spent < 0) { budget = (spent + row.add) / row.mult; break; }
                    budget = spent;
                    mask |= row.value;
                }
                got[KEYWORDS] = mask;
            }
        }
        int attack = static_cast<int>(budget + att_bonus), defense = static_cast<int>(budget + def_bonus);
        int low = MIN_DEFENSE[type];
        attack = (attack < 0 || type == BLUE) ? 0 : attack * SIGN[type];
        defense = (defense < low ? low : defense) * SIGN[type];
        made.push_back(Card{0, type, cost, attack, defense, got[KEYWORDS], got[MY], got[OPP], got[DRAW], got[AREA]});
    }
    std::stable_sort(made.begin(), made.end(), [](const Card& a, const Card& b) { return a.cost < b.cost; });
    for (int k = 0; k < N; ++k) made[k].base_id = k;
    return made;
}

py::tuple generated_cards(int64_t card_gen_seed, int handle, const py::object& card_class) {
    std::vector<Card> cards = generate_cards(card_gen_seed, handle);
    py::tuple out(cards.size());
    PyObject* cls = card_class.ptr();
    for (size_t k = 0; k < cards.size(); ++k) {
        const Card& c = cards[k];
        int v[10] = {c.base_id, c.type, c.cost, c.attack, c.defense, c.keywords, c.my_health, c.opp_health, c.draw,
                     c.area};
        PyObject* args[11];
        for (int i = 0; i < 10; ++i) args[1 + i] = PyLong_FromLong(v[i]);
        PyObject* o = PyObject_Vectorcall(cls, args + 1, 10 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr);
        for (int i = 0; i < 10; ++i) Py_DECREF(args[1 + i]);
        if (!o) throw py::error_already_set();
        PyTuple_SET_ITEM(out.ptr(), static_cast<Py_ssize_t>(k), o);
    }
    return out;
}

// --- canonical JSON (msgspec's encoding of the events: the tag first, the event's own fields, then seq, cause,
// rule) -----------------------------------------------------------------------------------------------------------

// An output buffer of bytes, grown by doubling and kept between calls (no zero-filling once grown). An event is
// written through a `W`, a raw pointer into room reserved for the event's longest JSON (`json_bound`): no check
// per byte.
struct Buf {
    std::string s;
    size_t n = 0;
    char* room(size_t k) {
        if (n + k > s.size()) s.resize(std::max(2 * s.size(), n + k + 4096));
        return &s[n];
    }
    void put(const char* p, size_t k) { std::memcpy(room(k), p, k); n += k; }
    void put(std::string_view v) { put(v.data(), v.size()); }
    void put(char c) { *room(1) = c; ++n; }
    void put_int(int v) {
        char* p = room(12);
        n = std::to_chars(p, p + 12, v).ptr - s.data();
    }
    void put_long(int64_t v) {
        char* p = room(21);
        n = std::to_chars(p, p + 21, v).ptr - s.data();
    }
};

// The writers below are inlined where they are used (a call each was a third of writing an event).
#if defined(__GNUC__)
#define LOCM_INLINE inline __attribute__((always_inline))
#else
#define LOCM_INLINE inline
#endif

constexpr char DIGIT_PAIRS[] = "0001020304050607080910111213141516171819202122232425262728293031323334353637383940414243"
                               "4445464748495051525354555657585960616263646566676869707172737475767778798081828384858687"
                               "888990919293949596979899";

struct W {
    char* p;
    template <size_t N> LOCM_INLINE void lit(const char (&k)[N]) { std::memcpy(p, k, N - 1); p += N - 1; }
    LOCM_INLINE void put(const char* q, size_t k) { std::memcpy(p, q, k); p += k; }
    LOCM_INLINE void put(std::string_view v) { put(v.data(), v.size()); }
    LOCM_INLINE void put(char c) { *p++ = c; }
    LOCM_INLINE void put_int(int v) {  // as std::to_chars writes it: up to four digits by pairs, the rest by it
        unsigned u = static_cast<unsigned>(v);
        if (v < 0) {
            *p++ = '-';
            u = 0u - u;
        }
        if (u < 10) { *p++ = static_cast<char>('0' + u); return; }
        if (u < 100) { std::memcpy(p, DIGIT_PAIRS + 2 * u, 2); p += 2; return; }
        if (u < 1000) {
            *p = static_cast<char>('0' + u / 100);
            std::memcpy(p + 1, DIGIT_PAIRS + 2 * (u % 100), 2);
            p += 3;
            return;
        }
        if (u < 10000) {
            std::memcpy(p, DIGIT_PAIRS + 2 * (u / 100), 2);
            std::memcpy(p + 2, DIGIT_PAIRS + 2 * (u % 100), 2);
            p += 4;
            return;
        }
        p = std::to_chars(p, p + 12, u).ptr;
    }
    void put_long(int64_t v) { p = std::to_chars(p, p + 21, v).ptr; }
    void put_list(const int* v, int k) {
        *p++ = '[';
        for (int i = 0; i < k; ++i) {
            if (i) *p++ = ',';
            put_int(v[i]);
        }
        *p++ = ']';
    }
    void put_str(const std::string& v) {  // as msgspec writes printable ASCII: `"` and `\` escaped
        *p++ = '"';
        for (char ch : v) {
            if (ch == '"' || ch == '\\') *p++ = '\\';
            *p++ = ch;
        }
        *p++ = '"';
    }
};

// An action_received's or a hard error's text (`which` 1) or a hard error's reason (`which` 2), written
// through `o` unquoted and, for the texts from outside, unescaped (the caller escapes those: `from_outside`).
struct TextRef {
    const Game* g;
    const Ev* e;
    int which;
    const std::string* from_outside() const {
        if (e->tk != TX_STRING) return nullptr;
        return &g->strs[which == 2 ? e->s2 : e->s1];
    }
    template <class O> void write(O& o) const {
        static const std::string_view VERBS[] = {"SUMMON ", "ATTACK ", "USE "};
        const int* n = e->n;
        switch (e->tk) {
        case TX_PASS: o.put(std::string_view("PASS")); break;
        case TX_COMMAND: o.put(VERBS[n[1]]); o.put_int(n[2]); o.put(' '); o.put_int(n[3]); break;
        case TX_PICK: o.put(std::string_view("PICK ")); o.put_int(n[1]); break;
        case TX_CHOOSE:
            for (int i = 0; i < e->n1; ++i) {
                if (i) o.put(';');
                o.put(std::string_view("CHOOSE "));
                o.put_int(g->l1(*e)[i]);
            }
            break;
        case TX_STRING: o.put(*from_outside()); break;
        }
    }
};

// The longest JSON an event can take (its fixed part, its lists and texts): the room `write_json` reserves.
size_t json_bound(const Game& g, const Ev& e) {
    size_t k = 400 + 12 * static_cast<size_t>(e.n1 + e.n2);
    if (e.tk == TX_CHOOSE) k += 20 * static_cast<size_t>(e.n1);
    if (e.tk == TX_STRING) k += 2 * (g.strs[e.s1].size() + g.strs[e.s2].size());
    return k;
}

const char* const TAGS[] = {"card_picked", "deck_chosen", "deck_ordered", "action_received", "turn_started",
                            "turn_ended", "card_drawn", "draw_lost", "draw_bonus", "creature_summoned",
                            "creature_attacked", "item_used", "creature_modified", "ward_lost", "creature_damaged",
                            "creature_died", "player_damaged", "player_healed", "rune_broken", "game_ended",
                            "hard_error"};
constexpr int N_TYPES = 21;
const std::string_view TAG_VIEWS[] = {"card_picked", "deck_chosen", "deck_ordered", "action_received",
    "turn_started", "turn_ended", "card_drawn", "draw_lost", "draw_bonus", "creature_summoned",
    "creature_attacked", "item_used", "creature_modified", "ward_lost", "creature_damaged", "creature_died",
    "player_damaged", "player_healed", "rune_broken", "game_ended", "hard_error"};
const std::string_view WORD_VIEWS[] = {"attack", "breakthrough", "item", "summon", "deck", "turn_limit", "drain",
    "rune", "damage", "card", "hand_full", "health", "cap", "action", "end_turn", "hard_error"};
const std::string_view RULE_VIEWS[] = {"R-ACTIONS", "R-DRAFT", "R-CONSTRUCT", "R-DECK", "R-TURN", "R-DRAW",
    "R-RUNES", "R-DAMAGEDRAW", "R-SUMMON", "R-ATTACK", "R-USE", "R-WIN", "R-CAP"};

// Every field of an event, in the order of its class (engine/events/locm/catalog.py: the event's own fields,
// then seq, cause, rule), for a visitor: `i` an integer, `b` a flag, `w` a word, `t` a text, `l` a list.
template <class V> void visit(const Game& g, const Ev& e, V& j) {
    const int* n = e.n;
    const int* l1 = g.ints.data() + e.l1;
    const int* l2 = g.ints.data() + e.l2;
    switch (e.type) {
    case CARD_PICKED: j.i("player", n[0]).i("round", n[1]).i("base_id", n[2]).b("ends_phase", e.f1); break;
    case DECK_CHOSEN: j.i("player", n[0]).l("base_ids", l1, e.n1).b("ends_phase", e.f1); break;
    case DECK_ORDERED: j.i("player", n[0]).l("ids", l1, e.n1).l("base_ids", l2, e.n2); break;
    case ACTION_RECEIVED: j.i("player", n[0]).t("text", TextRef{&g, &e, 1}).w("kind", e.word); break;
    case TURN_STARTED:
        j.i("player", n[0]).i("turn", n[1]).i("max_mana", n[2]).i("mana", n[3]).b("bonus_spent", e.f1)
            .i("draws", n[4]).l("ready", l1, e.n1).l("cleared", l2, e.n2);
        break;
    case TURN_ENDED: j.i("player", n[0]); break;
    case CARD_DRAWN: j.i("player", n[0]).i("id", n[1]); break;
    case DRAW_LOST: j.i("player", n[0]).w("reason", e.word); break;
    case DRAW_BONUS: j.i("player", n[0]).i("amount", n[1]).w("source", e.word); break;
    case CREATURE_SUMMONED:
        j.i("player", n[0]).i("id", n[1]).i("base_id", n[2]).i("lane", n[3]).i("cost", n[4]).i("copy_of", n[5])
            .b("can_attack", e.f1);
        break;
    case CREATURE_ATTACKED: j.i("player", n[0]).i("attacker", n[1]).i("target", n[2]); break;
    case ITEM_USED: j.i("player", n[0]).i("id", n[1]).i("base_id", n[2]).i("target", n[3]).i("cost", n[4]); break;
    case CREATURE_MODIFIED:
        j.i("id", n[0]).i("attack", n[1]).i("defense", n[2]).i("keywords", n[3]).b("can_attack", e.f1);
        break;
    case WARD_LOST: j.i("id", n[0]); break;
    case CREATURE_DAMAGED: j.i("id", n[0]).i("amount", n[1]); break;
    case CREATURE_DIED: j.i("id", n[0]); break;
    case PLAYER_DAMAGED: j.i("player", n[0]).i("amount", n[1]).w("source", e.word).b("counts", e.f1); break;
    case PLAYER_HEALED: j.i("player", n[0]).i("amount", n[1]).w("source", e.word); break;
    case RUNE_BROKEN: j.i("player", n[0]).i("rune", n[1]); break;
    case GAME_ENDED: j.i("winner", n[0]).w("reason", e.word).i("turn", n[1]); break;
    case HARD_ERROR: j.i("player", n[0]).t("reason", TextRef{&g, &e, 2}).t("text", TextRef{&g, &e, 1}); break;
    }
    j.i("seq", e.seq).i("cause", e.cause).r("rule", e.rule);
}

// A key as it is written: `,"name":` (known at compile time, so its length is too).
struct J {
    W& s;
    template <size_t N> LOCM_INLINE void key(const char (&k)[N]) {
        s.p[0] = ','; s.p[1] = '"';
        std::memcpy(s.p + 2, k, N - 1);
        s.p[N + 1] = '"'; s.p[N + 2] = ':';
        s.p += N + 3;
    }
    template <size_t N> LOCM_INLINE J& i(const char (&k)[N], int v) { key(k); s.put_int(v); return *this; }
    template <size_t N> LOCM_INLINE J& b(const char (&k)[N], bool v) {
        key(k);
        if (v) s.lit("true"); else s.lit("false");
        return *this;
    }
    template <size_t N> LOCM_INLINE J& w(const char (&k)[N], Word v) { key(k); s.put('"'); s.put(WORD_VIEWS[v]); s.put('"'); return *this; }
    template <size_t N> LOCM_INLINE J& r(const char (&k)[N], Rule v) { key(k); s.put('"'); s.put(RULE_VIEWS[v]); s.put('"'); return *this; }
    template <size_t N> LOCM_INLINE J& t(const char (&k)[N], const TextRef& v) {
        key(k);
        if (const std::string* outside = v.from_outside()) {
            s.put_str(*outside);
        } else {
            s.put('"');
            v.write(s);
            s.put('"');
        }
        return *this;
    }
    template <size_t N> LOCM_INLINE J& l(const char (&k)[N], const int* v, int n) { key(k); s.put_list(v, n); return *this; }
};

void write_json(Buf& s, const Game& g, const Ev& e) {
    W w{s.room(json_bound(g, e))};
    char* begin = w.p;
    w.lit("{\"type\":\"");
    w.put(TAG_VIEWS[e.type]);
    w.put('"');
    J j{w};
    visit(g, e, j);
    w.put('}');
    s.n += static_cast<size_t>(w.p - begin);
}

// The events as the msgspec Structs themselves (the classes handed in by `set_event_types`), each built by one
// vectorcall with its fields as keywords: a tenth of decoding their JSON.
struct Names {
    std::vector<const char*> names;
    Names& i(const char* k, int) { names.push_back(k); return *this; }
    Names& b(const char* k, bool) { names.push_back(k); return *this; }
    Names& w(const char* k, Word) { names.push_back(k); return *this; }
    Names& r(const char* k, Rule) { names.push_back(k); return *this; }
    Names& t(const char* k, const TextRef&) { names.push_back(k); return *this; }
    Names& l(const char* k, const int*, int) { names.push_back(k); return *this; }
};

struct PyTypes {
    PyObject* cls[N_TYPES] = {};
    PyObject* kwnames[N_TYPES] = {};
    PyObject* words[sizeof(WORDS) / sizeof(WORDS[0])] = {};
    PyObject* rules[sizeof(RULE_NAMES) / sizeof(RULE_NAMES[0])] = {};
    bool ready = false;
};
PyTypes TYPES;

PyObject* int_list_tuple(const int* v, int n) {
    PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(n));
    if (!t) throw py::error_already_set();
    for (int k = 0; k < n; ++k) {
        PyObject* x = PyLong_FromLong(v[k]);
        if (!x) { Py_DECREF(t); throw py::error_already_set(); }
        PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(k), x);
    }
    return t;
}

// A text made into a std::string (for a Python str).
struct StrOut {
    std::string s;
    void put(std::string_view v) { s.append(v.data(), v.size()); }
    void put(char c) { s.push_back(c); }
    void put_int(int v) { char b[12]; s.append(b, std::to_chars(b, b + 12, v).ptr - b); }
};

struct Values {
    PyObject* args[16];
    int n = 0;
    void push(PyObject* o) {
        if (!o) throw py::error_already_set();
        args[1 + n++] = o;  // args[0] is left free (PY_VECTORCALL_ARGUMENTS_OFFSET)
    }
    Values& i(const char*, int v) { push(PyLong_FromLong(v)); return *this; }
    Values& b(const char*, bool v) { PyObject* o = v ? Py_True : Py_False; Py_INCREF(o); push(o); return *this; }
    Values& w(const char*, Word v) { Py_INCREF(TYPES.words[v]); push(TYPES.words[v]); return *this; }
    Values& r(const char*, Rule v) { Py_INCREF(TYPES.rules[v]); push(TYPES.rules[v]); return *this; }
    Values& t(const char*, const TextRef& v) {
        StrOut o;
        v.write(o);
        push(PyUnicode_FromStringAndSize(o.s.data(), static_cast<Py_ssize_t>(o.s.size())));
        return *this;
    }
    Values& l(const char*, const int* v, int k) { push(int_list_tuple(v, k)); return *this; }
    ~Values() { for (int k = 0; k < n; ++k) Py_DECREF(args[1 + k]); }
};

PyObject* event_object(const Game& g, const Ev& e) {
    Values v;
    visit(g, e, v);
    return PyObject_Vectorcall(TYPES.cls[e.type], v.args + 1, PY_VECTORCALL_ARGUMENTS_OFFSET,
                               TYPES.kwnames[e.type]);
}

void set_event_types(const py::dict& classes) {
    for (int k = 0; k < N_TYPES; ++k) {
        py::object cls = classes[py::str(TAGS[k])];
        Py_XDECREF(TYPES.cls[k]);
        TYPES.cls[k] = cls.release().ptr();
        Game g;
        Ev e{};
        e.type = static_cast<Type>(k);
        Names names;
        visit(g, e, names);
        PyObject* t = PyTuple_New(static_cast<Py_ssize_t>(names.names.size()));
        for (size_t i = 0; i < names.names.size(); ++i)
            PyTuple_SET_ITEM(t, static_cast<Py_ssize_t>(i), PyUnicode_InternFromString(names.names[i]));
        Py_XDECREF(TYPES.kwnames[k]);
        TYPES.kwnames[k] = t;
    }
    for (size_t k = 0; k < sizeof(WORDS) / sizeof(WORDS[0]); ++k)
        if (!TYPES.words[k]) TYPES.words[k] = PyUnicode_InternFromString(WORDS[k]);
    for (size_t k = 0; k < sizeof(RULE_NAMES) / sizeof(RULE_NAMES[0]); ++k)
        if (!TYPES.rules[k]) TYPES.rules[k] = PyUnicode_InternFromString(RULE_NAMES[k]);
    TYPES.ready = true;
}

// --- the module ------------------------------------------------------------------------------------------------

Rules rules_from(const py::tuple& r) {
    Rules x;
    x.runes = r[0].cast<std::vector<int>>();
    x.draw_runes = r[1].cast<bool>();
    x.damage_draw_step = r[2].cast<int>();
    x.empty_lose_rune = r[3].cast<bool>();
    x.turn_limit = r[4].cast<int>();
    x.limit_ten_damage = r[5].cast<bool>();
    x.penalty_damage = r[6].cast<int>();
    x.full_hand_stops_draws = r[7].cast<bool>();
    x.area = r[8].cast<bool>();
    x.id_scheme = r[9].cast<int>();
    x.hand_limit = r[10].cast<int>();
    x.start_health = r[11].cast<int>();
    x.deck_size = r[12].cast<int>();
    x.lane_size = r[13].cast<int>();
    x.max_mana = r[14].cast<int>();
    x.draft_rounds = r[15].cast<int>();
    x.max_copies = r[16].cast<int>();
    x.draft = r[17].cast<bool>();
    return x;
}

py::tuple state_of(const Game& g) {
    py::list players;
    for (const Player& pl : g.players) {
        py::list actions;
        static const char* const VERBS[] = {"SUMMON", "ATTACK", "USE"};
        for (const ActionRec& a : pl.actions) actions.append(py::make_tuple(a.base_id, VERBS[a.verb], a.id, a.arg));
        players.append(py::make_tuple(pl.health, pl.max_mana, pl.mana, pl.bonus, pl.runes, pl.next_draw,
                                      pl.draw_shown, pl.damage_counter, pl.deck, pl.hand, pl.board, actions,
                                      pl.turns, pl.picks, pl.last_damage));
    }
    py::list units;
    for (const Unit& u : g.units) {
        if (u.id < 0) continue;
        units.append(py::make_tuple(u.id, g.cards[u.card].base_id, u.owner, u.attack, u.defense, u.keywords,
                                    u.can_attack, u.has_attacked, u.lane, u.touched));
    }
    static const char* const PHASES[] = {"draft", "construct", "battle", "ended"};
    return py::make_tuple(PHASES[g.phase], g.seq, g.current, g.turn, g.round, g.next_id, g.winner,
                          g.end_reason < 0 ? "" : WORDS[g.end_reason], players, units);
}

// The card pool as msgspec encodes a tuple of `Card` (array-like: ten integers, then the name and the text).
std::vector<Card> parse_cards(std::string_view s) {
    std::vector<Card> out;
    size_t i = 0, n = s.size();
    auto fail = [] { throw std::invalid_argument("the card pool is not a JSON array of cards"); };
    auto skip_ws = [&] { while (i < n && (s[i] == ' ' || s[i] == '\n')) ++i; };
    auto expect = [&](char c) { skip_ws(); if (i >= n || s[i] != c) fail(); ++i; };
    auto integer = [&] {
        skip_ws();
        int v = 0;
        auto r = std::from_chars(s.data() + i, s.data() + n, v);
        if (r.ec != std::errc()) fail();
        i = r.ptr - s.data();
        return v;
    };
    auto skip_string = [&] {
        expect('"');
        while (i < n && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
        if (i >= n) fail();
        ++i;
    };
    expect('[');
    skip_ws();
    if (i < n && s[i] == ']') return out;
    while (true) {
        expect('[');
        int v[10];
        for (int k = 0; k < 10; ++k) {
            if (k) expect(',');
            v[k] = integer();
        }
        skip_ws();
        while (i < n && s[i] == ',') { ++i; skip_string(); skip_ws(); }
        expect(']');
        out.push_back(Card{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]});
        skip_ws();
        if (i < n && s[i] == ',') { ++i; continue; }
        expect(']');
        return out;
    }
}

// Plays a game from its opening (the events the Python core made: game_created, the card pool, the draft
// offers) to its end. Returns (the rest of the log: the event objects, or with `as_json` their JSON lines; the
// final state, or None without `with_state`; the agents' generators; each seat's turns' times in ms).
// A game at the state after its opening (the Python core's): its rules, shuffle seeds, card pool (as canonical
// JSON), draft offers and next seq; greedy's keyword values (64, by mask) are the caller's and must outlive it.
void open_game(Game& g, const Rules& rules, int64_t shuffle0, int64_t shuffle1, std::vector<Card> cards,
               std::vector<std::vector<int>> offers, int seq, const double* kw_values) {
    g.rules = rules;
    g.shuffle_seed[0] = shuffle0;
    g.shuffle_seed[1] = shuffle1;
    int max_base = 0;
    for (const Card& card : cards) {
        if (card.base_id < 0) throw std::invalid_argument("a negative base id");
        max_base = std::max(max_base, card.base_id);
    }
    g.cards = std::move(cards);
    g.card_index.assign(max_base + 1, -1);
    for (size_t k = 0; k < g.cards.size(); ++k) g.card_index[g.cards[k].base_id] = static_cast<int>(k);
    g.offers = std::move(offers);
    for (int p = 0; p < 2; ++p) {
        g.players[p].health = g.rules.start_health;
        g.players[p].max_mana = p;
        g.players[p].mana = p;
        g.players[p].bonus = p == 1;
        g.players[p].runes = g.rules.runes;
    }
    g.kw_value = kw_values;
    g.phase = g.rules.draft ? DRAFT_PHASE : CONSTRUCT_PHASE;
    g.seq = seq;
    g.current = 0;
    g.next_id = 2 * (g.rules.draft ? g.rules.draft_rounds : g.rules.deck_size) + 1;
    g.log.reserve(1024);
    g.ints.reserve(2048);
}

// A game's log as canonical JSON lines, in this thread's buffer (kept between calls, valid until its next one).
Buf& json_lines(const Game& g) {
    thread_local Buf s;
    s.n = 0;
    for (const Ev& e : g.log) {
        write_json(s, g, e);
        s.put('\n');
    }
    return s;
}

py::tuple play_game(const py::tuple& rules, int64_t shuffle0, int64_t shuffle1, const py::bytes& cards,
                    const py::list& offers, int seq, const py::list& agents, bool with_state, bool as_json,
                    const std::vector<double>& kw_values, bool timed) {
    if (kw_values.size() != 64) throw std::invalid_argument("64 keyword values expected");
    Game g;
    g.timed = timed;
    open_game(g, rules_from(rules), shuffle0, shuffle1, parse_cards(std::string_view(cards)),
              offers.cast<std::vector<std::vector<int>>>(), seq, kw_values.data());
    Agent ag[2];
    for (int p = 0; p < 2; ++p) {
        auto a = agents[p].cast<std::pair<int, uint64_t>>();
        ag[p].kind = a.first;
        ag[p].rng.seed = a.second & MASK48;
    }
    {
        py::gil_scoped_release release;
        g.play(ag);
    }

    py::object log;
    if (as_json) {
        Buf& s = json_lines(g);
        log = py::bytes(s.s.data(), s.n);
    } else {
        if (!TYPES.ready) throw std::runtime_error("set_event_types was not called");
        PyObject* list = PyList_New(static_cast<Py_ssize_t>(g.log.size()));
        if (!list) throw py::error_already_set();
        log = py::reinterpret_steal<py::object>(list);
        for (size_t k = 0; k < g.log.size(); ++k) {
            PyObject* o = event_object(g, g.log[k]);
            if (!o) throw py::error_already_set();
            PyList_SET_ITEM(list, static_cast<Py_ssize_t>(k), o);
        }
    }
    py::object state = with_state ? py::object(state_of(g)) : py::none();

    return py::make_tuple(log, state, py::make_tuple(ag[0].rng.seed, ag[1].rng.seed),
                          py::make_tuple(g.turn_ms[0], g.turn_ms[1]));
}

// One recorded input, read from the stored log: kind (0 action, 1 end_turn, 2 hard error), player, text, reason.
struct Input {
    int kind, player;
    std::string text, reason;
};

// A JSON string at `s[i]` (its opening quote) as msgspec writes printable ASCII (only `\"` and `\\` escaped);
// false for anything else. `i` ends past the closing quote.
bool read_str(std::string_view s, size_t& i, std::string& out) {
    if (i >= s.size() || s[i] != '"') return false;
    out.clear();
    for (++i; i < s.size(); ++i) {
        char c = s[i];
        if (c == '"') { ++i; return true; }
        if (c == '\\') {
            if (++i >= s.size() || (s[i] != '"' && s[i] != '\\')) return false;
            c = s[i];
        } else if (c < 0x20 || c > 0x7e) {
            return false;
        }
        out += c;
    }
    return false;
}

// The recorded inputs of a stored log (`[e,e,...]`, each event its canonical JSON): every `action_received` and
// `hard_error` with cause -1, in order. False when one is not of a kind this core plays (an answer line) or not
// of the canonical form. They are only what to play: whether the log is sound is the byte comparison's to say.
bool stored_inputs(std::string_view s, std::vector<Input>& in) {
    static constexpr std::string_view ACT = "{\"type\":\"action_received\",\"player\":",
                                      HARD = "{\"type\":\"hard_error\",\"player\":",
                                      CAUSE = ",\"cause\":-1,\"rule\":";
    size_t i = 0, n = s.size();
    while (true) {
        size_t at = s.find("{\"type\":\"", i);
        if (at == std::string_view::npos) return true;
        std::string_view rest = s.substr(at);
        bool act = rest.substr(0, ACT.size()) == ACT, hard = !act && rest.substr(0, HARD.size()) == HARD;
        if (!act && !hard) {  // another event: `{"` starts one only (in a JSON string a quote is escaped)
            i = at + 1;
            continue;
        }
        i = at + (act ? ACT.size() : HARD.size());
        Input x;
        if (i + 1 >= n || (s[i] != '0' && s[i] != '1')) return false;
        x.player = s[i++] - '0';
        auto key = [&](std::string_view k) {
            if (s.substr(i, k.size()) != k) return false;
            i += k.size();
            return true;
        };
        std::string kind;
        if (act) {
            if (!key(",\"text\":") || !read_str(s, i, x.text) || !key(",\"kind\":") || !read_str(s, i, kind))
                return false;
            if (kind == "action") x.kind = 0;
            else if (kind == "end_turn") x.kind = 1;
            else return false;  // an answer line (an external bot's): the Python core's
        } else {
            x.kind = 2;
            if (!key(",\"reason\":") || !read_str(s, i, x.reason) || !key(",\"text\":") || !read_str(s, i, x.text))
                return false;
        }
        if (!key(",\"seq\":")) return false;
        while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
        if (s.substr(i, CAUSE.size()) == CAUSE) in.push_back(std::move(x));
    }
}

// `redecide_inputs` past its arguments (no Python object touched: it runs without the GIL).
std::tuple<int, int, int> replay_and_compare(Game& g, std::string_view want, int seq) {
    std::vector<Input> in;
    if (!stored_inputs(want, in)) return {2, -1, 0};
    int inputs = static_cast<int>(in.size());
    for (size_t k = 0; k < in.size(); ++k) {
        if (g.phase == ENDED_PHASE) break;  // the log goes on: its next event is where it differs
        if (!g.play_input(in[k].kind, in[k].player, in[k].text, in[k].reason)) return {2, static_cast<int>(k), inputs};
    }
    Buf s;
    s.put('[');
    for (size_t k = 0; k < g.log.size(); ++k) {
        if (k) s.put(',');
        size_t start = s.n;
        write_json(s, g, g.log[k]);
        size_t end = s.n;
        if (want.size() <= end || want.compare(start, end - start, std::string_view(s.s.data() + start, end - start))
            || (want[end] != ',' && want[end] != ']'))
            return {1, seq + static_cast<int>(k), inputs};
    }
    s.put(']');
    int after = seq + static_cast<int>(g.log.size());
    if (std::string_view(s.s.data(), s.n) != want || g.phase != ENDED_PHASE) return {1, after, inputs};
    return {0, -1, inputs};
}

// Re-decides a game (engine/locm/redecide.py) from its opening (as `play_game` takes it) and the log stored after
// it, `stored`: its events from that seq as msgspec encodes a list of them (`[e,e,...]`, each event its
// canonical JSON). The recorded inputs are read from `stored` (`stored_inputs`), played again
// (`Game.play_input`), and the log they make is compared with `stored`, byte for byte. Returns (status, seq,
// the inputs read): status 0 (seq -1) when they are the same and the game is over; 1 with the seq of the first
// event that differs (or that one side lacks: the log goes on past the game's end, or ends before it); 2 when
// an input is not one this core plays as it is (the Python core re-decides such a log).
py::tuple redecide_inputs(const py::tuple& rules, int64_t shuffle0, int64_t shuffle1, const py::bytes& cards,
                          const py::list& offers, int seq, const py::bytes& stored) {
    Game g;
    open_game(g, rules_from(rules), shuffle0, shuffle1, parse_cards(std::string_view(cards)),
              offers.cast<std::vector<std::vector<int>>>(), seq, nullptr);
    std::string_view want(stored);
    std::tuple<int, int, int> made;
    {
        py::gil_scoped_release release;
        made = replay_and_compare(g, want, seq);
    }
    return py::make_tuple(std::get<0>(made), std::get<1>(made), std::get<2>(made));
}

// --- a game's opening from its seeds -------------------------------------------------------------------------
//
// The card pool and draft offers as engine/locm/setup.py decides them from the pool's seed: the 1.2 draft
// (draft.py's `_offers_one_by_one` over `card_list`, the 160 cards by baseId, a variant's changed cards in place)
// or the constructed pool (cardgen.py, by the generator's tables `handle`).
constexpr int CARDLIST_SIZE = 160;

void draft_draw(int64_t seed, int rounds, std::vector<int>& pool, std::vector<std::vector<int>>& offers) {
    int size = std::min(2 * rounds, CARDLIST_SIZE);
    JRandom rng = JRandom::from_seed(seed);
    bool taken[CARDLIST_SIZE] = {};
    pool.clear();
    while (static_cast<int>(pool.size()) < size) {
        int k = java_next_int(rng, CARDLIST_SIZE);
        if (!taken[k]) { taken[k] = true; pool.push_back(k + 1); }
    }
    offers.clear();
    for (int rnd = 0; rnd < rounds; ++rnd) {
        int a = java_next_int(rng, size), b = java_next_int(rng, size);
        while (b == a) b = java_next_int(rng, size);
        int c = java_next_int(rng, size);
        while (c == a || c == b) c = java_next_int(rng, size);
        offers.push_back({pool[a], pool[b], pool[c]});
    }
}

void seeded_pool(const Rules& rules, const std::vector<Card>& card_list, int64_t pool_seed, int handle,
                 std::vector<Card>& cards, std::vector<std::vector<int>>& offers) {
    cards.clear();
    offers.clear();
    if (rules.draft) {
        if (card_list.size() != CARDLIST_SIZE) throw std::runtime_error("no 1.2 card list was given");
        std::vector<int> pool;
        draft_draw(pool_seed, rules.draft_rounds, pool, offers);
        for (int b : pool) cards.push_back(card_list[b - 1]);
    } else {
        cards = generate_cards(pool_seed, handle);
    }
}

// The 1.2 card list (baseIds 1..160) from its canonical JSON.
std::vector<Card> card_list_from(const py::bytes& cards) {
    std::vector<Card> list = parse_cards(std::string_view(cards));
    if (list.size() != CARDLIST_SIZE) throw std::invalid_argument("160 cards expected");
    for (size_t k = 0; k < list.size(); ++k)
        if (list[k].base_id != static_cast<int>(k) + 1) throw std::invalid_argument("cards by baseId expected");
    return list;
}

// --- whole games from their seeds (engine/locm/native.py's `play_jsonl`) ----------------------------------------
//
// A game between built-in agents from its seed alone, its opening decided here as engine/locm/setup.py's `create`
// decides it (R-SEEDS: each seed parameter the next long of the seed's generator, in the ruleset's order; then
// the card pool and the draft's offers) and its whole log written as canonical JSON lines, with no Python object
// made. What does not change with the seed is the Python core's, handed in once an `Opener`: the game_created
// line cut where the seeds go (`pieces` around `slots`: 0 the seed, 1 + k the k-th seed parameter), the 1.2 card
// list with each card's JSON, or the card generator's tables; the agents (each seat's seeded from the game's seed
// as engine/locm/agents.py's `seat_seed` seeds it).

int64_t java_next_long(JRandom& r) {
    uint64_t hi = static_cast<uint64_t>(static_cast<int64_t>(r.next(32)));
    uint64_t lo = static_cast<uint64_t>(static_cast<int64_t>(r.next(32)));
    return static_cast<int64_t>((hi << 32) + lo);
}

int64_t seat_seed(int64_t game_seed, int seat) {
    uint64_t x = static_cast<uint64_t>(game_seed) * 0x9E3779B97F4A7C15ULL
                 + static_cast<uint64_t>(seat + 1) * 0xBF58476D1CE4E5B9ULL;
    return static_cast<int64_t>(x);
}

class Opener {
  public:
    Opener(const py::tuple& rules, int n_params, int pool_at, int shuffle0_at, int shuffle1_at,
           std::vector<std::string> pieces, std::vector<int> slots, const py::bytes& card_list,
           std::vector<std::string> card_json, int handle, std::vector<int> kinds, std::vector<double> kw_values)
        : rules_(rules_from(rules)), n_params_(n_params), pool_at_(pool_at), shuffle_at_{shuffle0_at, shuffle1_at},
          pieces_(std::move(pieces)), slots_(std::move(slots)), card_json_(std::move(card_json)), handle_(handle),
          kinds_(std::move(kinds)), kw_values_(std::move(kw_values)) {
        if (n_params < 0 || n_params > 8) throw std::invalid_argument("at most 8 seed parameters");
        for (int at : {pool_at, shuffle0_at, shuffle1_at})
            if (at < 0 || at >= n_params) throw std::invalid_argument("a seed parameter out of range");
        if (pieces_.size() != slots_.size() + 1) throw std::invalid_argument("one piece more than slots expected");
        for (int k : slots_)
            if (k < 0 || k > n_params) throw std::invalid_argument("a slot out of range");
        if (rules_.draft) {
            card_list_ = card_list_from(card_list);
            if (card_json_.size() != CARDLIST_SIZE) throw std::invalid_argument("160 cards' JSON expected");
        } else if (handle < 0 || handle >= static_cast<int>(CARDGEN.size())) {
            throw std::invalid_argument("no such card generator");
        }
        if (kinds_.size() != 2) throw std::invalid_argument("two agents expected");
        for (int k : kinds_)
            if (k < 0 || k > 2) throw std::invalid_argument("an agent kind is 0 pass, 1 random or 2 greedy");
        if (kw_values_.size() != 64) throw std::invalid_argument("64 keyword values expected");
    }

    // The game of `seed`: its whole log, canonical JSON lines.
    py::bytes play(int64_t seed) {
        thread_local Buf s;
        s.n = 0;
        {
            py::gil_scoped_release release;
            write_game(s, seed);
        }
        return py::bytes(s.s.data(), s.n);
    }

  private:
    Rules rules_;
    int n_params_, pool_at_, shuffle_at_[2];
    std::vector<std::string> pieces_;
    std::vector<int> slots_;
    std::vector<Card> card_list_;
    std::vector<std::string> card_json_;
    int handle_;
    std::vector<int> kinds_;
    std::vector<double> kw_values_;

    void write_game(Buf& s, int64_t seed) {
        int64_t values[9];
        values[0] = seed;
        JRandom r = JRandom::from_seed(seed);
        for (int k = 0; k < n_params_; ++k) values[1 + k] = java_next_long(r);
        for (size_t k = 0; k < slots_.size(); ++k) {
            s.put(pieces_[k]);
            s.put_long(values[slots_[k]]);
        }
        s.put(pieces_.back());
        s.put('\n');

        std::vector<Card> cards;
        std::vector<std::vector<int>> offers;
        seeded_pool(rules_, card_list_, values[1 + pool_at_], handle_, cards, offers);
        s.put(std::string_view("{\"type\":\"card_pool_defined\",\"cards\":["));
        for (size_t k = 0; k < cards.size(); ++k) {
            if (k) s.put(',');
            const Card& c = cards[k];
            if (rules_.draft) {
                s.put(card_json_[c.base_id - 1]);
                continue;
            }
            W w{s.room(160)};  // a generated card: its ten numbers, no name, no text
            char* begin = w.p;
            const int v[10] = {c.base_id, c.type, c.cost, c.attack, c.defense, c.keywords, c.my_health,
                               c.opp_health, c.draw, c.area};
            w.put_list(v, 10);
            w.p -= 1;  // reopen the list for the name and the text
            w.lit(",\"\",\"\"]");
            s.n += static_cast<size_t>(w.p - begin);
        }
        s.put(rules_.draft ? std::string_view("],\"seq\":1,\"cause\":0,\"rule\":\"R-DRAFT\"}\n")
                           : std::string_view("],\"seq\":1,\"cause\":0,\"rule\":\"R-CARDGEN\"}\n"));
        for (size_t k = 0; k < offers.size(); ++k) {
            W w{s.room(200)};
            char* begin = w.p;
            w.lit("{\"type\":\"draft_offered\",\"round\":");
            w.put_int(static_cast<int>(k));
            w.lit(",\"base_ids\":");
            w.put_list(offers[k].data(), static_cast<int>(offers[k].size()));
            w.lit(",\"seq\":");
            w.put_int(2 + static_cast<int>(k));
            w.lit(",\"cause\":0,\"rule\":\"R-DRAFT\"}\n");
            s.n += static_cast<size_t>(w.p - begin);
        }

        Game g;
        g.timed = false;
        int seq = 2 + static_cast<int>(offers.size());
        open_game(g, rules_, values[1 + shuffle_at_[0]], values[1 + shuffle_at_[1]], std::move(cards),
                  std::move(offers), seq, kw_values_.data());
        Agent ag[2];
        for (int p = 0; p < 2; ++p) {
            ag[p].kind = kinds_[p];
            ag[p].rng = JRandom::from_seed(kinds_[p] == 1 ? seat_seed(seed, p) : 0);
        }
        g.play(ag);
        for (const Ev& e : g.log) {
            write_json(s, g, e);
            s.put('\n');
        }
    }
};

// The 1.2 draft's cards and offers of a draftChoicesSeed (engine/locm/draft.py's `draft_offers`).
py::tuple draft_offers(int64_t seed, int rounds) {
    if (rounds < 0) throw std::invalid_argument("rounds must not be negative");
    std::vector<int> pool;
    std::vector<std::vector<int>> offers;
    draft_draw(seed, rounds, pool, offers);
    py::list triples(offers.size());
    for (size_t k = 0; k < offers.size(); ++k) triples[k] = py::make_tuple(offers[k][0], offers[k][1], offers[k][2]);
    return py::make_tuple(py::cast(pool), triples);
}

// --- the battle environment, N games a call (locm/rl/locm_native.py) ---------------------------------------------
//
// LOCM's battle environment (locm/rl/env.py's `GameEnv` over locm/rl/locm.py's `LocmMatch`, learning the battle
// only, the win-loss reward) for N games at once: each `step` plays every game's learner action, the other seat's
// turns and the learner's own agent's deck building until the learner decides again, and writes the
// observations, masks, rewards, terminations and truncations into the caller's NumPy arrays, with no Python
// object made. The encoding is `LocmMatch._battle_obs` and `_battle_choices`, number for number (float32 of the
// same double arithmetic). A game's opening is the Python core's (`open_row`, once an episode).

constexpr int LANES = 2, OWN_UNIT = 10, ENEMY_UNIT = 9, HAND_WIDTH = 19;

struct EnvRow {
    Game g;
    Agent ag[2];  // ag[seat]: the learner's own agent (deck building); ag[1 - seat]: the opponent
    int seat = 0, invalid = 0;
    bool live = false;
    std::vector<Action> acts;      // the legal list at the learner's decision
    std::vector<int> slot_action;  // slot -> index into acts, -1 for the end of the turn, -2 for no action
};

class BattleVec {
  public:
    BattleVec(const py::tuple& rules, int n, bool bounded, bool keep_log, double invalid_reward, int max_invalid,
              std::vector<double> kw_values)
        : rules_(rules_from(rules)), rows_(n), bounded_(bounded), keep_log_(keep_log),
          invalid_reward_(invalid_reward), max_invalid_(max_invalid), kw_values_(std::move(kw_values)) {
        if (n < 1) throw std::invalid_argument("at least one environment");
        if (kw_values_.size() != 64) throw std::invalid_argument("64 keyword values expected");
        h_ = rules_.hand_limit;
        s_ = rules_.lane_size;
        use_base_ = 1 + LANES * h_;
        use_width_ = 1 + 2 * LANES * s_;
        attack_base_ = use_base_ + h_ * use_width_;
        n_actions_ = attack_base_ + LANES * s_ * (1 + s_);
        obs_size_ = 16 + h_ * HAND_WIDTH + LANES * s_ * (OWN_UNIT + ENEMY_UNIT);
    }
    int n_actions() const { return n_actions_; }
    int obs_size() const { return obs_size_; }

    // Row i's new game from its opening (the Python core's events: `locm.engine.locm.native.opening_of`), played
    // to the learner's first decision; its observation and mask written.
    void open_row(int i, int64_t shuffle0, int64_t shuffle1, const py::bytes& cards, const py::list& offers, int seq,
                  int seat, const py::list& agents, py::array_t<float> obs, py::array_t<bool> mask) {
        EnvRow& r = row(i);
        r.g = Game();
        open_game(r.g, rules_, shuffle0, shuffle1, parse_cards(std::string_view(cards)),
                  offers.cast<std::vector<std::vector<int>>>(), seq, kw_values_.data());
        start(i, seat, agents, obs, mask);
    }
    // The same from the game's seeds alone, its opening decided here as engine/locm/setup.py decides it: the 1.2
    // draft (draft.py's `_offers_one_by_one` over `set_card_list`'s cards) or the constructed pool (cardgen.py,
    // by the generator's tables `handle`). For games whose log is not kept: no opening event is made.
    void open_row_seeded(int i, int64_t shuffle0, int64_t shuffle1, int64_t pool_seed, int handle, int seat,
                         const py::list& agents, py::array_t<float> obs, py::array_t<bool> mask) {
        EnvRow& r = row(i);
        r.g = Game();
        std::vector<Card> cards;
        std::vector<std::vector<int>> offers;
        seeded_pool(rules_, card_list_, pool_seed, handle, cards, offers);
        int seq = 2 + static_cast<int>(offers.size());  // game_created, card_pool_defined, the draft's offers
        open_game(r.g, rules_, shuffle0, shuffle1, std::move(cards), std::move(offers), seq, kw_values_.data());
        start(i, seat, agents, obs, mask);
    }
    // How `open_row_from` opens a game from its seed alone: the seed parameters (engine/locm/setup.py's
    // `derive_params`: each the next long of Random(seed), `n_params` of them in the ruleset's order, the pool's
    // and the shuffles' at their indices), the generator's tables `handle` (constructed), the learner's seat and
    // the agents' kinds (0 pass, 1 random, 2 greedy: `own` the learner's deck building, `opp` the other seat's).
    void set_seeding(int n_params, int pool_at, int shuffle0_at, int shuffle1_at, int handle, int seat, int own,
                     int opp) {
        if (n_params < 1 || n_params > 8) throw std::invalid_argument("1 to 8 seed parameters");
        for (int at : {pool_at, shuffle0_at, shuffle1_at})
            if (at < 0 || at >= n_params) throw std::invalid_argument("a seed parameter out of range");
        for (int k : {own, opp})
            if (k < 0 || k > 2) throw std::invalid_argument("an agent kind is 0 pass, 1 random or 2 greedy");
        if (seat != 0 && seat != 1) throw std::invalid_argument("seat 0 or 1");
        bool pooled = rules_.draft ? card_list_.size() == CARDLIST_SIZE
                                   : handle >= 0 && handle < static_cast<int>(CARDGEN.size());
        if (!pooled)
            throw std::invalid_argument(rules_.draft ? "no 1.2 card list was given" : "no such card generator");
        seeding_ = {n_params, pool_at, shuffle0_at, shuffle1_at, handle, seat, own, opp};
        seeded_ = true;
    }
    // Row i's game of `seed`, all of it decided here as locm/rl/locm_native.py's Python path decides it: the
    // seeds (`derive_params`), the pool and offers, the agents (a random agent's Random seeded by the seed given
    // for it: `own_seed` the learner's own, `opp_seed` the other seat's, which Python derives with hashlib's SHA-256
    // as locm.rl.env's `derive_seed` does).
    // True if the learner then has a decision (a legal slot), false if the game ended before it.
    bool open_row_from(int i, int64_t seed, int64_t own_seed, int64_t opp_seed, py::array_t<float> obs,
                       py::array_t<bool> mask) {
        if (!seeded_) throw std::runtime_error("set_seeding first");
        EnvRow& r = row(i);
        float* o = rows_of(obs, obs_size_) + static_cast<size_t>(i) * obs_size_;
        bool* m = rows_of(mask, n_actions_) + static_cast<size_t>(i) * n_actions_;
        const auto& z = seeding_;
        int64_t values[8];
        JRandom jr = JRandom::from_seed(seed);
        for (int k = 0; k < z[0]; ++k) values[k] = java_next_long(jr);
        int seat = z[5], other = 1 - seat;
        int kind[2];
        int64_t agent_seed[2];
        kind[other] = z[7];
        kind[seat] = z[6];
        agent_seed[other] = kind[other] == 1 ? opp_seed : 0;
        agent_seed[seat] = kind[seat] == 1 ? own_seed : 0;
        r.g = Game();
        std::vector<Card> cards;
        std::vector<std::vector<int>> offers;
        seeded_pool(rules_, card_list_, values[z[1]], z[4], cards, offers);
        int seq = 2 + static_cast<int>(offers.size());
        open_game(r.g, rules_, values[z[2]], values[z[3]], std::move(cards), std::move(offers), seq, kw_values_.data());
        r.g.keep_log = keep_log_;
        r.seat = seat;
        r.invalid = 0;
        for (int p = 0; p < 2; ++p) {
            r.ag[p].kind = kind[p];
            r.ag[p].rng = kind[p] == 1 ? JRandom::from_seed(agent_seed[p]) : JRandom{0};
        }
        r.live = true;
        {
            py::gil_scoped_release release;
            advance(r, o, m);
        }
        return std::any_of(m, m + n_actions_, [](bool b) { return b; });
    }
    // The 1.2 card list (baseIds 1..160, a variant's changed cards in place) `open_row_seeded` drafts from.
    void set_card_list(const py::bytes& cards) { card_list_ = card_list_from(cards); }

    // Every row's action (a slot); the rows' results written in place. Rows not open are left as they are.
    void step(py::array_t<int64_t, py::array::c_style | py::array::forcecast> actions, py::array_t<float> obs,
              py::array_t<bool> mask, py::array_t<double> rewards, py::array_t<bool> terminations,
              py::array_t<bool> truncations) {
        const int n = static_cast<int>(rows_.size());
        if (actions.ndim() != 1 || actions.shape(0) != n) throw std::invalid_argument("one action a row expected");
        const int64_t* a = actions.data();
        float* o = rows_of(obs, obs_size_);
        bool* m = rows_of(mask, n_actions_);
        double* rw = vec_of(rewards);
        bool* te = vec_of(terminations);
        bool* tr = vec_of(truncations);
        py::gil_scoped_release release;
        for (int i = 0; i < n; ++i) {
            EnvRow& r = rows_[i];
            rw[i] = 0.0;
            te[i] = tr[i] = false;
            if (!r.live) continue;
            float* oi = o + static_cast<size_t>(i) * obs_size_;
            bool* mi = m + static_cast<size_t>(i) * n_actions_;
            int64_t slot = a[i];
            int k = slot >= 0 && slot < n_actions_ ? r.slot_action[slot] : -2;
            if (k == -2) {  // outside the mask: nothing changes but the count of invalid actions in a row
                rw[i] = invalid_reward_;
                tr[i] = ++r.invalid >= max_invalid_;
                continue;
            }
            r.invalid = 0;
            if (k < 0) {
                r.g.battle_command(nullptr);
            } else {
                Action chosen = r.acts[k];
                r.g.battle_command(&chosen);
            }
            advance(r, oi, mi);
            if (r.g.phase == ENDED_PHASE) {
                te[i] = true;
                bool first = r.g.winner == 0;  // the Python core's result: (1, -1) if seat 0 won, else (-1, 1)
                rw[i] = (r.seat == 0) == first ? 1.0 : -1.0;
            }
        }
    }

    // Row i's events since its opening as canonical JSON lines (with the log kept), then the row closed.
    py::bytes take_log(int i) {
        EnvRow& r = row(i);
        Buf& s = json_lines(r.g);
        r.g.log.clear();
        r.g.ints.clear();
        r.g.strs.clear();
        r.g.start = 0;
        return py::bytes(s.s.data(), s.n);
    }
    py::tuple row_state(int i) { return state_of(row(i).g); }
    py::tuple row_rngs(int i) { EnvRow& r = row(i); return py::make_tuple(r.ag[0].rng.seed, r.ag[1].rng.seed); }
    size_t row_bytes() const { return sizeof(EnvRow); }

  private:
    Rules rules_;
    std::vector<EnvRow> rows_;
    bool bounded_, keep_log_;
    double invalid_reward_;
    int max_invalid_, h_ = 0, s_ = 0, use_base_ = 0, use_width_ = 0, attack_base_ = 0, n_actions_ = 0, obs_size_ = 0;
    std::vector<double> kw_values_;
    std::vector<Card> card_list_;
    std::array<int, 8> seeding_{};
    bool seeded_ = false;

    void start(int i, int seat, const py::list& agents, py::array_t<float>& obs, py::array_t<bool>& mask) {
        EnvRow& r = rows_[i];
        r.g.keep_log = keep_log_;
        r.seat = seat;
        r.invalid = 0;
        for (int p = 0; p < 2; ++p) {
            auto a = agents[p].cast<std::pair<int, uint64_t>>();
            r.ag[p].kind = a.first;
            r.ag[p].rng.seed = a.second & MASK48;
        }
        r.live = true;
        float* o = rows_of(obs, obs_size_);
        bool* m = rows_of(mask, n_actions_);
        advance(r, o + static_cast<size_t>(i) * obs_size_, m + static_cast<size_t>(i) * n_actions_);
    }

    EnvRow& row(int i) {

        if (i < 0 || i >= static_cast<int>(rows_.size())) throw std::out_of_range("no such environment");
        return rows_[i];
    }
    template <class T> T* rows_of(py::array_t<T>& a, int width) {
        if (a.ndim() != 2 || a.shape(0) != static_cast<py::ssize_t>(rows_.size()) || a.shape(1) != width ||
            !(a.flags() & py::array::c_style))
            throw std::invalid_argument("a C-contiguous array of one row an environment expected");
        return a.mutable_data();
    }
    template <class T> T* vec_of(py::array_t<T>& a) {
        if (a.ndim() != 1 || a.shape(0) != static_cast<py::ssize_t>(rows_.size()) || !(a.flags() & py::array::c_style))
            throw std::invalid_argument("a C-contiguous vector of one value an environment expected");
        return a.mutable_data();
    }

    // GameEnv._advance: the others play until the learner decides in the battle, or the game ends.
    void advance(EnvRow& r, float* o, bool* m) {
        Game& g = r.g;
        while (g.phase != ENDED_PHASE && !(g.phase == BATTLE_PHASE && g.current == r.seat)) g.agent_turn(r.ag[g.current]);
        if (g.phase == ENDED_PHASE) {
            std::fill(o, o + obs_size_, 0.0f);
            std::fill(m, m + n_actions_, false);
            r.acts.clear();
            r.slot_action.assign(n_actions_, -2);
            r.live = false;
            return;
        }
        observe(g, r.seat, o);
        choices(r, m);
    }

    // LocmMatch._battle_obs
    void observe(const Game& g, int p, float* o) const {
        const Player& me = g.players[p];
        const Player& op = g.players[1 - p];
        const double h = h_, deck = std::max(1, rules_.draft ? rules_.draft_rounds : rules_.deck_size),
                     board = 2 * s_;
        float* w = o;
        for (const Player* pl : {&me, &op}) {
            *w++ = static_cast<float>(pl->health / 30.0);
            *w++ = static_cast<float>(pl->mana / 13.0);
            *w++ = static_cast<float>(pl->max_mana / 13.0);
            *w++ = static_cast<float>((pl->runes.empty() ? 0 : pl->runes[0]) / 30.0);
            *w++ = static_cast<float>(pl->next_draw / 6.0);
            *w++ = static_cast<float>(pl->hand.size() / h);
            *w++ = static_cast<float>(pl->deck.size() / deck);
            *w++ = static_cast<float>(pl->board.size() / board);
        }
        for (int id : me.hand) {
            const Card& c = g.card_of(g.units[id]);
            *w++ = 1.0f;
            for (int t = 0; t < 4; ++t) *w++ = c.type == t ? 1.0f : 0.0f;
            *w++ = static_cast<float>(c.cost / 12.0);
            *w++ = static_cast<float>(c.attack / 12.0);
            *w++ = static_cast<float>(std::max(-12, c.defense) / 12.0);
            *w++ = static_cast<float>(c.my_health / 12.0);
            *w++ = static_cast<float>(c.opp_health / 12.0);
            *w++ = static_cast<float>(c.draw / 2.0);
            for (int b = 0; b < 6; ++b) *w++ = (c.keywords & 63) >> b & 1 ? 1.0f : 0.0f;
            *w++ = static_cast<float>(c.area / 2.0);
            *w++ = c.cost <= me.mana ? 1.0f : 0.0f;
        }
        w = std::fill_n(w, (h_ - static_cast<int>(me.hand.size())) * HAND_WIDTH, 0.0f);
        constexpr double I12 = 1.0 / 12;  // the Python core's `_I12`: a unit's stats times it, not divided
        for (int own = 1; own >= 0; --own) {
            const Player& pl = own ? me : op;
            for (int lane = 0; lane < LANES; ++lane) {
                int count = 0;
                for (int id : pl.board) {
                    const Unit& u = g.units[id];
                    if (u.lane != lane) continue;
                    ++count;
                    *w++ = 1.0f;
                    *w++ = static_cast<float>(u.attack * I12);
                    *w++ = static_cast<float>(u.defense * I12);
                    if (own) *w++ = u.can_attack && !u.has_attacked ? 1.0f : 0.0f;
                    for (int b = 0; b < 6; ++b) *w++ = u.keywords >> b & 1 ? 1.0f : 0.0f;
                }
                w = std::fill_n(w, (s_ - count) * (own ? OWN_UNIT : ENEMY_UNIT), 0.0f);
            }
        }
        if (!bounded_)
            for (float* x = o; x < w; ++x) *x = std::min(100.0f, std::max(-100.0f, *x));
    }

    // LocmMatch._battle_choices: slot 0 (the end of the turn) and each legal action's slot
    void choices(EnvRow& r, bool* m) {
        Game& g = r.g;
        int p = g.current;
        g.legal(r.acts);
        std::fill(m, m + n_actions_, false);
        r.slot_action.assign(n_actions_, -2);
        m[0] = true;
        r.slot_action[0] = -1;
        auto hand_index = [&](int id) {
            const std::vector<int>& hand = g.players[p].hand;
            return static_cast<int>(std::find(hand.begin(), hand.end(), id) - hand.begin());
        };
        auto place = [&](int player, int id, bool whole) {  // by lane then position (whole), or in its lane
            int lane = g.units[id].lane, k = 0;
            for (int v : g.players[player].board) {
                if (v == id) break;
                k += g.units[v].lane == lane;
            }
            return whole ? lane * s_ + k : k;
        };
        const int enemy_base = 1 + LANES * s_;
        for (size_t k = 0; k < r.acts.size(); ++k) {
            const Action& a = r.acts[k];
            int slot;
            if (a.verb == 0) {
                slot = 1 + 2 * hand_index(a.a) + a.b;
            } else if (a.verb == 1) {
                slot = attack_base_ + (1 + s_) * place(p, a.a, true) + (a.b == -1 ? 0 : 1 + place(1 - p, a.b, false));
            } else {
                int t;
                if (a.b == -1) t = 0;
                else if (g.units[a.b].owner == p) t = 1 + place(p, a.b, true);
                else t = enemy_base + g.units[a.b].lane * s_ + place(1 - p, a.b, false);
                slot = use_base_ + use_width_ * hand_index(a.a) + t;
            }
            m[slot] = true;
            r.slot_action[slot] = static_cast<int>(k);
        }
    }
};

}  // namespace

PYBIND11_MODULE(_native, m) {
    m.doc() = "LOCM's rules core in C++ (engine/locm/native.py is its Python side)";
    m.def("play_game", &play_game, py::arg("rules"), py::arg("shuffle0"), py::arg("shuffle1"), py::arg("cards"),
          py::arg("offers"), py::arg("seq"), py::arg("agents"), py::arg("with_state") = true,
          py::arg("as_json") = false, py::arg("kw_values") = std::vector<double>(64, 0.0),
          py::arg("timed") = true);
    m.def("set_event_types", &set_event_types, py::arg("classes"));
    m.def("redecide_inputs", &redecide_inputs, py::arg("rules"), py::arg("shuffle0"), py::arg("shuffle1"),
          py::arg("cards"), py::arg("offers"), py::arg("seq"), py::arg("stored"));
    m.def("set_cardgen_tables", &set_cardgen_tables, py::arg("tables"));
    m.def("generated_cards", &generated_cards, py::arg("card_gen_seed"), py::arg("handle"), py::arg("card_class"));
    m.def("java_next_ints", [](int64_t seed, int bound, int count) {
        JRandom r = JRandom::from_seed(seed);
        std::vector<int> out;
        for (int k = 0; k < count; ++k) out.push_back(java_next_int(r, bound));
        return out;
    });
    m.def("draft_offers", &draft_offers, py::arg("draft_choices_seed"), py::arg("rounds"));
    py::class_<Opener>(m, "Opener")
        .def(py::init<const py::tuple&, int, int, int, int, std::vector<std::string>, std::vector<int>,
                      const py::bytes&, std::vector<std::string>, int, std::vector<int>, std::vector<double>>(),
             py::arg("rules"), py::arg("n_params"), py::arg("pool_at"), py::arg("shuffle0_at"),
             py::arg("shuffle1_at"), py::arg("pieces"), py::arg("slots"), py::arg("card_list"),
             py::arg("card_json"), py::arg("handle"), py::arg("kinds"), py::arg("kw_values"))
        .def("play", &Opener::play, py::arg("seed"));
    py::class_<BattleVec>(m, "BattleVec")
        .def(py::init<const py::tuple&, int, bool, bool, double, int, std::vector<double>>(), py::arg("rules"),
             py::arg("n"), py::arg("bounded"), py::arg("keep_log"), py::arg("invalid_reward"), py::arg("max_invalid"),
             py::arg("kw_values"))
        .def_property_readonly("n_actions", &BattleVec::n_actions)
        .def_property_readonly("obs_size", &BattleVec::obs_size)
        .def("open_row", &BattleVec::open_row)
        .def("open_row_seeded", &BattleVec::open_row_seeded)
        .def("set_card_list", &BattleVec::set_card_list)
        .def("set_seeding", &BattleVec::set_seeding)
        .def("open_row_from", &BattleVec::open_row_from)
        .def("step", &BattleVec::step)
        .def("take_log", &BattleVec::take_log)
        .def("row_state", &BattleVec::row_state)
        .def("row_rngs", &BattleVec::row_rngs)
        .def("row_bytes", &BattleVec::row_bytes);
    m.attr("AGENTS") = py::make_tuple("pass", "random", "greedy");
    m.attr("SOURCE_SHA256") = LOCM_SOURCE_SHA256;
    m.attr("BEHAVIOUR") = BEHAVIOUR;
}
