// The deals of one process stepped side by side (durak_env/vector_games.py: VectorGames), natively: one call
// plays an action in every deal, the forced moves after it, deals again where a deal ended and writes every
// deal's next decision into the caller's arrays.  No allocation after construction.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "durak.hpp"

namespace durak {

// engine/loop.py: ending
enum Ending : int { PLAYING = 0, ENDED = 1, CUT = 2 };

struct Arrays {  // the caller's arrays, row-major, one row per deal (vector_games.array_shapes)
    float* obs = nullptr;
    int8_t* mask = nullptr;
    int64_t* seats = nullptr;
    float* rewards = nullptr;
    bool* ended = nullptr;
    bool* truncated = nullptr;
};

// Threads that each run one share of the rows when asked.  Between steps a thread first spins a little (a step
// of the trainer or a benchmark comes back within microseconds, sooner than a sleeping thread wakes), then sleeps
// on a condition variable: an idle environment costs nothing.
class Pool {
  public:
    explicit Pool(int threads) : shares_(threads) {
        for (int t = 1; t < threads; ++t) workers_.emplace_back([this, t] { work(t); });
    }
    ~Pool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_.store(true);
        }
        wake_.notify_all();
        for (auto& w : workers_) w.join();
    }
    int shares() const { return shares_; }
    // fn(share) for every share, this thread taking share 0; returns when all are done.
    void run(const std::function<void(int)>& fn) {
        if (shares_ == 1) return fn(0);
        task_ = &fn;
        pending_.store(shares_ - 1, std::memory_order_relaxed);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            generation_.fetch_add(1, std::memory_order_release);
            if (sleepers_) wake_.notify_all();
        }
        fn(0);
        for (Spin spin; !spin.over();)
            if (pending_.load(std::memory_order_acquire) == 0) return;
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return pending_.load(std::memory_order_acquire) == 0; });
    }

  private:
    // A spin of at most SPIN: the caller's Python between two steps (its policy's argmax, say) takes tens of
    // microseconds, and a thread that slept through it would take as long again to wake.
    static constexpr std::chrono::microseconds SPIN{200};
    struct Spin {
        std::chrono::steady_clock::time_point until = std::chrono::steady_clock::now() + SPIN;
        int count = 0;
        bool over() {
#if defined(__x86_64__) || defined(__i386__)
            __builtin_ia32_pause();
#endif
            return ++count % 64 == 0 && std::chrono::steady_clock::now() >= until;
        }
    };
    void work(int share) {
        uint64_t seen = 0;
        while (true) {
            for (Spin spin; generation_.load(std::memory_order_acquire) == seen &&
                            !stopping_.load(std::memory_order_relaxed) && !spin.over();) {
            }
            if (generation_.load(std::memory_order_acquire) == seen) {
                std::unique_lock<std::mutex> lock(mutex_);
                ++sleepers_;
                wake_.wait(lock, [&] { return stopping_.load() || generation_.load() != seen; });
                --sleepers_;
            }
            if (stopping_.load()) return;
            seen = generation_.load(std::memory_order_acquire);
            (*task_)(share);
            if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                std::lock_guard<std::mutex> lock(mutex_);
                done_.notify_one();
            }
        }
    }
    int shares_;
    std::vector<std::thread> workers_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void(int)>* task_ = nullptr;  // written before the generation moves on, read after
    std::atomic<int> pending_{0};
    std::atomic<uint64_t> generation_{0};
    std::atomic<bool> stopping_{false};
    int sleepers_ = 0;  // threads waiting on wake_ (under mutex_)
};

struct VectorCore {
    Rules rules;
    int num_envs, max_moves, obs_size, num_actions;
    std::vector<Game> games;
    std::vector<PyRandom> rngs;   // each row's stream of deal seeds (VectorGames._rngs)
    std::vector<int64_t> moves, final_moves;
    int64_t played = 0;
    std::vector<int64_t> share_played;  // moves played by each share of the rows in this step
    Arrays a;
    Pool pool;

    VectorCore(const Rules& r, int envs, int limit, int threads)
        : rules(r), num_envs(envs), max_moves(limit), obs_size(observation_size(r, false)),
          num_actions(Layout::of(r.deck_size).size()), games(envs), rngs(envs), moves(envs, 0),
          final_moves(envs, 0), share_played(threads, 0), pool(threads) {}

    // The rows of one share: [begin, end).
    int begin(int share) const { return static_cast<int>(static_cast<int64_t>(num_envs) * share / pool.shares()); }

    // fn(i) for every row, the rows shared out over the threads.
    template <typename F>
    void rows(F fn) {
        std::function<void(int)> task = [&](int share) {
            for (int i = begin(share), end = begin(share + 1); i < end; ++i) fn(i, share);
        };
        pool.run(task);
    }

    // VectorGames.new_deal: a deal from the row's stream, its forced opening moves played, dealt again while
    // those moves end it; returns the moves played.
    int64_t new_deal(int i) {
        int64_t count = 0;
        do {
            PyRandom deal_rng;
            deal_rng.seed(rngs[i].getrandbits64());
            games[i].deal_seeded(rules, deal_rng, 0);
            moves[i] = settle(games[i], 0);
            count += moves[i];
        } while (games[i].over);
        return count;
    }

    // loop.settle without a chooser: the forced moves, never past the move limit; returns the deal's moves.
    int64_t settle(Game& g, int64_t done) {
        int64_t room = max_moves - done;
        return done + g.play_forced(room > 0 ? static_cast<int>(room) : 0);
    }

    int ending(const Game& g, int64_t count) const { return g.over ? ENDED : count >= max_moves ? CUT : PLAYING; }

    void reset() {
        for (auto& p : share_played) p = 0;
        rows([&](int i, int share) { share_played[share] += new_deal(i); });
        for (auto p : share_played) played += p;
        std::memset(a.rewards, 0, sizeof(float) * num_envs * rules.num_players);
        std::memset(a.ended, 0, num_envs);
        std::memset(a.truncated, 0, num_envs);
        write_all();
    }

    // The first row whose action is not legal there, or -1 when every one is.
    int check(const int64_t* actions) {
        for (int i = 0; i < num_envs; ++i)
            if (!games[i].is_legal(actions[i])) return i;
        return -1;
    }

    // VectorGames.play: checked actions, one per deal.
    void play(const int64_t* actions, bool write) {
        const int n = rules.num_players;
        std::memset(a.rewards, 0, sizeof(float) * num_envs * n);
        std::memset(a.ended, 0, num_envs);
        std::memset(a.truncated, 0, num_envs);
        for (auto& p : share_played) p = 0;
        rows([&](int i, int share) {
            Game& g = games[i];
            g.play(static_cast<int>(actions[i]));
            int64_t before = moves[i];
            moves[i] = settle(g, before + 1);
            share_played[share] += moves[i] - before;
            int end = ending(g, moves[i]);
            if (end != PLAYING) {
                if (end == ENDED) {
                    for (int s = 0; s < n; ++s) a.rewards[i * n + s] = static_cast<float>(g.result.reward(s, n));
                    a.ended[i] = true;
                } else {
                    a.truncated[i] = true;
                }
                final_moves[i] = moves[i];
                share_played[share] += new_deal(i);
            }
            if (write) write_row(i);
            else a.seats[i] = g.to_act;
        });
        for (auto p : share_played) played += p;
    }

    void write_row(int i) {
        Game& g = games[i];
        a.seats[i] = g.to_act;
        encode(g, g.to_act, false, a.obs + static_cast<size_t>(i) * obs_size);
        int8_t* m = a.mask + static_cast<size_t>(i) * num_actions;
        std::memset(m, 0, num_actions);
        int count = g.legal_actions();
        for (int k = 0; k < count; ++k) m[g.legal[k]] = 1;
    }

    void write_all() {
        rows([&](int i, int) { write_row(i); });
    }
};

}  // namespace durak
